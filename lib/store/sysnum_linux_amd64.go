package store

// sysSyncfs is syncfs(2), which package syscall does not name on amd64.
const sysSyncfs = 306
