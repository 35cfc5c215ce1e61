// tlsserver: the Go HTTPS server of test_req_go_tls.sh (standard library
// only). net/http over crypto/tls on 127.0.0.1:PORT: ALPN offers h2 and
// http/1.1, as ServeTLS sets up by default. Each request, once its handler
// has returned, is one line of the log file, the test's ground truth:
//
//	remote_port method path status proto
//
// Usage: tlsserver PORT CERT KEY LOG
package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
)

// status remembers the status a handler answered with (200 unless it said).
type status struct {
	http.ResponseWriter
	code int
}

func (s *status) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *status) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func main() {
	if len(os.Args) != 5 {
		log.Fatal("usage: tlsserver PORT CERT KEY LOG")
	}
	port, cert, key := os.Args[1], os.Args[2], os.Args[3]
	// unbuffered: each line is one write(2), whole once it returns
	logf, err := os.OpenFile(os.Args[4], os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex

	big := make([]byte, 100000)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Write(big)
	})
	mux.HandleFunc("/teapot", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "I'm a teapot", http.StatusTeapot)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Write(body)
	})
	// (the mux answers any other path 404)

	logged := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := &status{ResponseWriter: w}
		mux.ServeHTTP(s, r)
		if s.code == 0 {
			s.code = http.StatusOK
		}
		_, rport, _ := net.SplitHostPort(r.RemoteAddr)
		mu.Lock()
		fmt.Fprintf(logf, "%s %s %s %d %s\n", rport, r.Method, r.URL.Path, s.code, r.Proto)
		mu.Unlock()
	})

	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: logged}
	log.Fatal(srv.ServeTLS(ln, cert, key))
}
