// tlsclient: the Go HTTPS client of test_req_go_tls.sh (standard library
// only). Over keep-alive connections to BASE (https://127.0.0.1:PORT, any
// certificate), COUNT rounds of
//
//	GET /ok 200, GET /big 200, GET /missing 404, GET /teapot 418,
//	POST /echo 200 (the body echoed), GET /echo 405
//
// MODE h1: HTTP/1.1 only (no h2 in ALPN); h2: HTTP/2 (ALPN h2), and then
// STREAMS goroutines at once, 3 requests each, so that several streams are in
// flight on the one connection. One line per request on stdout:
//
//	local_port method path status
//
// Exits 0 only if every request had its expected status (and body).
//
// Usage: tlsclient [-hold FILE] [-wait FILE] [-streams N] BASE MODE COUNT
//
//	-hold FILE: waits for FILE before anything (the process runs, connectionless)
//	-wait FILE: makes its first TLS connection (handshake), says
//	            "connected LOCAL_PORT" on stderr, then waits for FILE before
//	            its first request, which goes on that connection
package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

func waitFile(path string) {
	for deadline := time.Now().Add(100 * time.Second); time.Now().Before(deadline); {
		if _, err := os.Stat(path); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Fprintln(os.Stderr, "no", path, "after 100 s")
	os.Exit(2)
}

var (
	out    sync.Mutex
	failed bool
)

// do makes one request and checks its status (and an echo's body).
func do(c *http.Client, base, method, path, body string, want int) {
	port := "?"
	trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) {
		if a, ok := i.Conn.LocalAddr().(*net.TCPAddr); ok {
			port = strconv.Itoa(a.Port)
		}
	}}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		panic(err)
	}
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	status, why := 0, ""
	if resp, err := c.Do(req); err != nil {
		why = err.Error()
	} else {
		// read to the end: the connection is then kept for the next one
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		status = resp.StatusCode
		if err != nil {
			why = err.Error()
		} else if status != want {
			why = fmt.Sprintf("want %d", want)
		} else if body != "" && !bytes.Equal(got, []byte(body)) {
			why = "echo differs"
		}
	}
	out.Lock()
	defer out.Unlock()
	if why != "" {
		failed = true
		fmt.Fprintf(os.Stderr, "%s %s %s %d: %s\n", port, method, path, status, why)
	}
	fmt.Printf("%s %s %s %d\n", port, method, path, status)
}

func main() {
	hold := flag.String("hold", "", "wait for this file before anything")
	wait := flag.String("wait", "", "connect, then wait for this file before the first request")
	streams := flag.Int("streams", 4, "h2: goroutines at once at the end")
	flag.Parse()
	if flag.NArg() != 3 || (flag.Arg(1) != "h1" && flag.Arg(1) != "h2") {
		fmt.Fprintln(os.Stderr, "usage: tlsclient [-hold FILE] [-wait FILE] [-streams N] BASE h1|h2 COUNT")
		os.Exit(2)
	}
	base, h2 := flag.Arg(0), flag.Arg(1) == "h2"
	count, err := strconv.Atoi(flag.Arg(2))
	if err != nil {
		panic(err)
	}
	if *hold != "" {
		waitFile(*hold)
	}

	tc := &tls.Config{InsecureSkipVerify: true}
	tr := &http.Transport{TLSClientConfig: tc, MaxIdleConnsPerHost: 4}
	if h2 {
		tr.ForceAttemptHTTP2 = true // a custom TLS config turns h2 off unless forced
	} else {
		// an empty map, not nil: no protocol but HTTP/1.1
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	if *wait != "" {
		// the connection made before the wait, handed to the transport
		// for its first dial; any later dial is its own
		protos := []string{"http/1.1"}
		if h2 {
			protos = []string{"h2", "http/1.1"}
		}
		first, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp",
			strings.TrimPrefix(base, "https://"),
			&tls.Config{InsecureSkipVerify: true, NextProtos: protos})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "connected", first.LocalAddr().(*net.TCPAddr).Port)
		var once sync.Once
		tr.DialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			var c net.Conn
			once.Do(func() { c = first })
			if c != nil {
				return c, nil
			}
			d := &tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, NextProtos: protos}}
			return d.DialContext(ctx, network, addr)
		}
		waitFile(*wait)
	}
	c := &http.Client{Transport: tr, Timeout: 20 * time.Second}

	for i := 0; i < count; i++ {
		do(c, base, "GET", "/ok", "", 200)
		do(c, base, "GET", "/big", "", 200)
		do(c, base, "GET", "/missing", "", 404)
		do(c, base, "GET", "/teapot", "", 418)
		do(c, base, "POST", "/echo", fmt.Sprintf("hello %d", i), 200)
		do(c, base, "GET", "/echo", "", 405)
	}
	if h2 {
		// streams at once on the connection the rounds kept
		var wg sync.WaitGroup
		for g := 0; g < *streams; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				do(c, base, "GET", "/big", "", 200)
				do(c, base, "POST", "/echo", fmt.Sprintf("stream %d", g), 200)
				do(c, base, "GET", "/missing", "", 404)
			}(g)
		}
		wg.Wait()
	}
	tr.CloseIdleConnections()
	if failed {
		os.Exit(1)
	}
}
