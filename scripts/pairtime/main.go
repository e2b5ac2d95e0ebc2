// Command pairtime times commands against each other on a noisy machine:
// each round runs every command once, in an order that alternates from
// round to round, output to /dev/null, and records its wall time and the
// CPU time (user + system) the kernel charged it and its children
// (wait4's rusage, in microseconds). It prints, per command, the median
// of each and their ratios to the first command's, for
// scripts/bench-front.sh.
//
// Usage: pairtime ROUNDS 'CMD ARGS…' 'CMD ARGS…'…
package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: pairtime ROUNDS 'CMD ARGS…'…")
		os.Exit(3)
	}
	rounds, err := strconv.Atoi(os.Args[1])
	if err != nil || rounds < 1 {
		fmt.Fprintln(os.Stderr, "pairtime: ROUNDS: expected a positive number")
		os.Exit(3)
	}
	cmds := os.Args[2:]
	wall := make([][]float64, len(cmds))
	cpu := make([][]float64, len(cmds))
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pairtime:", err)
		os.Exit(2)
	}
	order := make([]int, len(cmds))
	for r := range rounds + 1 { // round 0 warms the caches and is not kept
		for i := range order {
			order[i] = i
		}
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			f := strings.Fields(cmds[i])
			c := exec.Command(f[0], f[1:]...)
			c.Stdout = null
			start := time.Now()
			if err := c.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "pairtime: %s: %v\n", cmds[i], err)
				os.Exit(2)
			}
			w := time.Since(start)
			ru := c.ProcessState.SysUsage().(*syscall.Rusage)
			u := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			if r > 0 {
				wall[i] = append(wall[i], float64(w.Microseconds()))
				cpu[i] = append(cpu[i], float64(u.Microseconds()))
			}
		}
	}
	w0, c0 := median(wall[0]), median(cpu[0])
	for i, c := range cmds {
		w, u := median(wall[i]), median(cpu[i])
		fmt.Printf("%-16s wall %7.0f µs (%.3f)   cpu %7.0f µs (%.3f)\n", c, w, w/w0, u, u/c0)
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
