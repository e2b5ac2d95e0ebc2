package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// ttyEnv are the variables a ttyexec'd program gets from the script:
// testscript does not let a command see the whole environment.
var ttyEnv = []string{
	"PATH", "HOME", "TMPDIR", "WORK", "TERM", "NO_COLOR", "LANG",
	"CTX_STORE", "CTX_CONFIG", "CTX_LOG_CACHE", "SOURCE_DATE_EPOCH", "GORACE",
	"SHARED", "XDG_CACHE_HOME", "DOCKER_CONFIG", "COSIGN_PASSWORD",
}

// cmdTtyexec runs a program as exec does but with its stdout on a
// pseudo-terminal (output processing off, so a newline stays a newline),
// which is what a person sees; stderr is collected as exec does, stdin is
// empty. With -answer PROMPT TEXT, stdin is the terminal too, and its
// controlling one, and TEXT and a newline are typed once PROMPT shows:
// a person answering a question.
func cmdTtyexec(ts *testscript.TestScript, neg bool, args []string) {
	var prompt, answer string
	if len(args) >= 3 && args[0] == "-answer" {
		prompt, answer, args = args[1], args[2], args[3:]
	}
	if len(args) < 1 {
		ts.Fatalf("usage: ttyexec [-answer PROMPT TEXT] program [args...]")
	}
	ctrl, tty, err := openPTY()
	ts.Check(err)
	defer ctrl.Close()
	path := args[0]
	if !strings.Contains(path, "/") {
		for _, dir := range strings.Split(ts.Getenv("PATH"), ":") {
			if fi, err := os.Stat(dir + "/" + path); err == nil && fi.Mode().IsRegular() {
				path = dir + "/" + path
				break
			}
		}
	}
	cmd := exec.Command(path, args[1:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range ttyEnv {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var stderr bytes.Buffer
	cmd.Stdin = strings.NewReader("")
	cmd.Stdout = tty
	cmd.Stderr = &stderr
	if prompt != "" {
		cmd.Stdin = tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	}
	err = cmd.Start()
	tty.Close()
	var mu sync.Mutex
	var out bytes.Buffer
	done := make(chan struct{})
	if err == nil {
		go func() {
			defer close(done)
			buf := make([]byte, 4096)
			for {
				n, err := ctrl.Read(buf)
				mu.Lock()
				out.Write(buf[:n])
				mu.Unlock()
				if err != nil {
					return // EIO once the program's end closes the terminal
				}
			}
		}()
		if prompt != "" {
			answerWhen(ts, ctrl, &mu, &out, done, prompt, answer)
		}
		<-done
		err = cmd.Wait()
	}
	ts.Stdout().Write(out.Bytes())
	ts.Stderr().Write(stderr.Bytes())
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		ts.Fatalf("ttyexec %s: %v", args[0], err)
	}
	if (err != nil) != neg {
		if neg {
			ts.Fatalf("unexpected command success")
		}
		ts.Fatalf("ttyexec %s: %v", args[0], err)
	}
}

// answerWhen types answer into the terminal once prompt has shown in
// its output, or gives up when the program ends or after 10 seconds.
func answerWhen(ts *testscript.TestScript, ctrl *os.File, mu *sync.Mutex, out *bytes.Buffer, done chan struct{}, prompt, answer string) {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		shown := strings.Contains(out.String(), prompt)
		mu.Unlock()
		if shown {
			if _, err := ctrl.WriteString(answer + "\n"); err != nil {
				ts.Logf("ttyexec: typing the answer: %v", err)
			}
			return
		}
		select {
		case <-done:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	ts.Logf("ttyexec: %q never showed", prompt)
}

// ttyAvailable reports whether pseudo-terminals can be opened here (a
// container may lack /dev/pts).
func ttyAvailable() bool {
	ctrl, tty, err := openPTY()
	if err != nil {
		return false
	}
	ctrl.Close()
	tty.Close()
	return true
}

// openPTY opens a new pseudo-terminal pair with output processing off.
func openPTY() (ctrl, tty *os.File, err error) {
	ctrl, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("opening a pseudo-terminal: %w", err)
	}
	var n uint32
	if n, err = unix.IoctlGetUint32(int(ctrl.Fd()), unix.TIOCGPTN); err == nil {
		err = unix.IoctlSetPointerInt(int(ctrl.Fd()), unix.TIOCSPTLCK, 0) // unlock
	}
	if err == nil {
		tty, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	}
	if err == nil {
		var t *unix.Termios
		if t, err = unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS); err == nil {
			t.Oflag &^= unix.OPOST
			err = unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, t)
		}
	}
	if err != nil {
		ctrl.Close()
		if tty != nil {
			tty.Close()
		}
		return nil, nil, fmt.Errorf("opening a pseudo-terminal: %w", err)
	}
	return ctrl, tty, nil
}
