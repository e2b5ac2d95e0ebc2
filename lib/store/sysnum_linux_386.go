package store

// sysSyncfs is syncfs(2), which package syscall does not name on 386.
const sysSyncfs = 344
