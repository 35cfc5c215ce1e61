// goprog: a Go program with crypto/tls over TCP, for test_go_bin.c to read
// (it is never run there): go_bin__read finds its (*Conn).Read and Write and
// its *net.TCPConn itab.
package main

import (
	"crypto/tls"
	"fmt"
	"os"
)

func main() {
	c, err := tls.Dial("tcp", "127.0.0.1:1", &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c.Write([]byte("x"))
	b := make([]byte, 1)
	c.Read(b)
	c.Close()
}
