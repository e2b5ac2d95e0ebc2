//go:build !unix

package main

const syscallNoFollow = 0
