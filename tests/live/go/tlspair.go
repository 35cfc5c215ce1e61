// tlspair: the Go program of test_tls_go.c (standard library only). One
// crypto/tls connection to itself over 127.0.0.1, then one plain TCP
// connection, each step started by a line on stdin so that the test can
// drain the driver's events between them:
//
//	out: ready PID CLI_FD SRV_FD CLI_TID SRV_TID   (after both handshakes)
//	in:  round
//	out: round N...                               (each call's result, in the
//	                                               order the test lists them)
//	     (then both TLS ends closed: close_notify, close(2))
//	in:  plain
//	out: plain CLI_FD SRV_FD N...                 (a plain connection's fds,
//	                                               the calls' results)
//	in:  exit
//
// With -dup (second argument; else -close) the TLS ends are left open after
// the round, and the plain connection's sockets are dup2'd over their
// numbers (closing them with no close(2)); its calls are then raw syscalls
// on those numbers, made blocking, and the line names them.
//
// With -lock each end's goroutine is locked to its OS thread (its tid
// printed); without it the goroutines go where Go's scheduler puts them and
// the tids printed are 0. Records are not sized dynamically, so that each
// Read returns what the test expects: one record's plaintext at most. The
// program ends itself after 30 s whatever happens.
package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// fill: LEN printable bytes of a pattern of its own for each SEED, as
// msg__fill in test_tls_go.c.
func fill(n, seed int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('A' + (i*7+seed*13)%58)
	}
	return b
}

func die(what string, err error) {
	fmt.Fprintf(os.Stderr, "tlspair: %s: %v\n", what, err)
	os.Exit(1)
}

// sockFd: the socket of C, a *net.TCPConn.
func sockFd(c net.Conn) int {
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		die("SyscallConn", err)
	}
	fd := -1
	if err := rc.Control(func(s uintptr) { fd = int(s) }); err != nil {
		die("Control", err)
	}
	return fd
}

func certificate() tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		die("key", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		die("certificate", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// A call an end makes: Write of data, or Read into a buffer of size n.
type call struct {
	write bool
	data  []byte
	n     int
}

// end: runs CALLS on C once START is closed, each call's result into RES
// (-1 for an error, said); its tid first on TID (0 unlocked).
func end(c *tls.Conn, lock bool, calls []call, tid chan<- int, start <-chan struct{},
	res []int, done chan<- struct{}) {
	if lock {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tid <- syscall.Gettid()
	} else {
		tid <- 0
	}
	<-start
	for i, k := range calls {
		var n int
		var err error
		if k.write {
			n, err = c.Write(k.data)
		} else {
			n, err = c.Read(make([]byte, k.n))
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "tlspair: call %d: %v\n", i, err)
			n = -1
		}
		res[i] = n
	}
	done <- struct{}{}
}

func main() {
	lock := len(os.Args) > 1 && os.Args[1] == "-lock"
	dup := len(os.Args) > 2 && os.Args[2] == "-dup"
	go func() {
		time.Sleep(30 * time.Second)
		fmt.Fprintln(os.Stderr, "tlspair: 30 s gone, ending")
		os.Exit(2)
	}()
	in := bufio.NewReader(os.Stdin)
	wait := func(what string) {
		line, err := in.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != what {
			fmt.Fprintf(os.Stderr, "tlspair: want %q on stdin, got %q (%v)\n", what, line, err)
			os.Exit(1)
		}
	}

	srvCfg := &tls.Config{Certificates: []tls.Certificate{certificate()},
		DynamicRecordSizingDisabled: true}
	cliCfg := &tls.Config{InsecureSkipVerify: true, DynamicRecordSizingDisabled: true}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		die("listen", err)
	}
	type accepted struct {
		c   *tls.Conn
		fd  int
		err error
	}
	acc := make(chan accepted, 1)
	go func() {
		raw, err := ln.Accept()
		if err != nil {
			acc <- accepted{err: err}
			return
		}
		fd := sockFd(raw)
		c := tls.Server(raw, srvCfg)
		acc <- accepted{c, fd, c.Handshake()}
	}()
	cli, err := tls.Dial("tcp", ln.Addr().String(), cliCfg)
	if err != nil {
		die("dial", err)
	}
	cliFd := sockFd(cli.NetConn())
	a := <-acc
	if a.err != nil {
		die("server handshake", a.err)
	}
	srv := a.c

	// the calls, as test_tls_go.c expects them
	cliCalls := []call{
		{write: true, data: fill(100, 1)},
		{n: 120},                            // the first 120 of the server's 300-byte record...
		{n: 100},                            // ...then 100 more of it, from crypto/tls's buffer
		{n: 4096},                           // and its last 80
		{write: true, data: fill(40000, 3)}, // three records
		{n: 4096},
	}
	srvCalls := []call{
		{n: 4096},
		{write: true, data: fill(300, 2)},
		{n: 20000}, {n: 20000}, {n: 20000}, // one record each
		{write: true, data: fill(50, 4)},
	}
	cliRes, srvRes := make([]int, len(cliCalls)), make([]int, len(srvCalls))
	tids := make(chan int)
	start := make(chan struct{})
	done := make(chan struct{})
	go end(cli, lock, cliCalls, tids, start, cliRes, done)
	cliTid := <-tids
	go end(srv, lock, srvCalls, tids, start, srvRes, done)
	srvTid := <-tids
	fmt.Printf("ready %d %d %d %d %d\n", os.Getpid(), cliFd, a.fd, cliTid, srvTid)

	wait("round")
	close(start)
	<-done
	<-done
	if !dup {
		cli.Close()
		srv.Close()
	}
	fmt.Print("round")
	for _, n := range append(cliRes, srvRes...) {
		fmt.Printf(" %d", n)
	}
	fmt.Println()

	// a plain connection: its sockets take the numbers the TLS ones left
	wait("plain")
	pcli, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		die("plain dial", err)
	}
	psrv, err := ln.Accept()
	if err != nil {
		die("plain accept", err)
	}
	res := make([]int, 4)
	if dup {
		// the TLS sockets' numbers now name the plain sockets
		for _, p := range [][2]int{{sockFd(pcli), cliFd}, {sockFd(psrv), a.fd}} {
			if err := syscall.Dup2(p[0], p[1]); err != nil {
				die("dup2", err)
			}
			if err := syscall.SetNonblock(p[1], false); err != nil {
				die("blocking", err)
			}
		}
		res[0], _ = syscall.Write(cliFd, fill(64, 5))
		res[1] = readAll(a.fd, 64)
		res[2], _ = syscall.Write(a.fd, fill(32, 6))
		res[3] = readAll(cliFd, 32)
		fmt.Printf("plain %d %d %d %d %d %d\n", cliFd, a.fd, res[0], res[1], res[2], res[3])
		wait("exit")
		runtime.KeepAlive(cli)
		runtime.KeepAlive(srv)
		return
	}
	res[0], _ = pcli.Write(fill(64, 5))
	res[1], _ = io.ReadFull(psrv, make([]byte, 64))
	res[2], _ = psrv.Write(fill(32, 6))
	res[3], _ = io.ReadFull(pcli, make([]byte, 32))
	fmt.Printf("plain %d %d %d %d %d %d\n", sockFd(pcli), sockFd(psrv), res[0], res[1], res[2], res[3])
	wait("exit")
}

// readAll reads N bytes from the blocking socket FD as io.ReadFull would:
// each read asks for the rest.
func readAll(fd, n int) int {
	b := make([]byte, n)
	got := 0
	for got < n {
		k, err := syscall.Read(fd, b[got:])
		if err != nil || k <= 0 {
			break
		}
		got += k
	}
	return got
}
