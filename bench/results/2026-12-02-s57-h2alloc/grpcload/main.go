// A gRPC-shaped load for bench/alloc (session 57, h2alloc): POSTs over h2c (prior knowledge) whose bodies have no
// content-length (content-type application/grpc), as a gRPC client sends them: unary (one 5-byte-prefixed message) or
// client-streaming (PIECES messages, each written on its own). Prints h2load's "requests:" line for run.sh's count.
// Usage: grpcload -url URL [-n N | -D SECS] [-c CONNS] [-m STREAMS] [-size BYTES] [-pieces K]
package main

import (
	"bytes"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	url := flag.String("url", "", "URL")
	n := flag.Int64("n", 0, "requests")
	dur := flag.Int("D", 0, "seconds")
	conns := flag.Int("c", 10, "connections")
	streams := flag.Int("m", 10, "streams per connection")
	size := flag.Int("size", 100, "message bytes")
	pieces := flag.Int("pieces", 1, "messages per request (client streaming when > 1)")
	flag.Parse()
	msg := make([]byte, 5+*size)
	msg[1], msg[2], msg[3], msg[4] = byte(*size>>24), byte(*size>>16), byte(*size>>8), byte(*size)
	var started, ok, failed atomic.Int64
	deadline := time.Now().Add(time.Duration(*dur) * time.Second)
	var wg sync.WaitGroup
	for c := 0; c < *conns; c++ {
		p := new(http.Protocols)
		p.SetUnencryptedHTTP2(true)
		tr := &http.Transport{Protocols: p, MaxConnsPerHost: 1, TLSClientConfig: &tls.Config{},
			DialContext: (&net.Dialer{}).DialContext}
		client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
		for s := 0; s < *streams; s++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					if *n > 0 && started.Add(1) > *n {
						return
					}
					if *dur > 0 && time.Now().After(deadline) {
						return
					}
					var body io.Reader
					if *pieces <= 1 {
						body = io.NopCloser(bytes.NewReader(msg)) // no Len(): sent without content-length
					} else {
						pr, pw := io.Pipe()
						go func() {
							for i := 0; i < *pieces; i++ {
								pw.Write(msg)
							}
							pw.Close()
						}()
						body = pr
					}
					req, _ := http.NewRequest("POST", *url, body)
					req.Header.Set("content-type", "application/grpc")
					req.Header.Set("te", "trailers")
					resp, err := client.Do(req)
					if err != nil {
						failed.Add(1)
						continue
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode == 200 {
						ok.Add(1)
					} else {
						failed.Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	d := ok.Load() + failed.Load()
	fmt.Printf("requests: %d total, %d started, %d done, %d succeeded, %d failed, 0 errored, 0 timeout\n", d, d, d, ok.Load(), failed.Load())
	if ok.Load() == 0 {
		os.Exit(1)
	}
}
