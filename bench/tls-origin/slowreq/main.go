// slowreq: keep-alive HTTP/1.1 load on -c connections for -d, like wrk, but it prints every request slower than
// -t with its connection, its index on that connection, when it started and how long it took: what tells a stall
// (requests that end only when the load stops) from a long tail. bench/tls-origin (docs/performance.md).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"sort"
	"sync"
	"time"
)

type slow struct {
	conn  int
	seq   int
	start time.Duration
	lat   time.Duration
}

func main() {
	addr := flag.String("a", "127.0.0.1:18081", "")
	n := flag.Int("c", 256, "")
	d := flag.Duration("d", 10*time.Second, "")
	t := flag.Duration("t", time.Second, "")
	flag.Parse()
	req := []byte("GET /hello HTTP/1.1\r\nHost: 127.0.0.1:18081\r\n\r\n")
	var mu sync.Mutex
	var slows []slow
	var total int
	var lats []time.Duration
	t0 := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < *n; i++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			c, err := net.Dial("tcp", *addr)
			if err != nil {
				fmt.Println("dial", err)
				return
			}
			defer c.Close()
			r := bufio.NewReader(c)
			buf := make([]byte, 4096)
			for seq := 0; time.Since(t0) < *d; seq++ {
				s := time.Now()
				c.Write(req)
				// read head, then Content-Length body
				cl := 0
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						fmt.Println("read", id, err)
						return
					}
					if line == "\r\n" {
						break
					}
					var v int
					if n, _ := fmt.Sscanf(line, "Content-Length: %d", &v); n == 1 {
						cl = v
					}
					if n, _ := fmt.Sscanf(line, "content-length: %d", &v); n == 1 {
						cl = v
					}
				}
				for cl > 0 {
					k, err := r.Read(buf[:min(cl, len(buf))])
					if err != nil {
						return
					}
					cl -= k
				}
				l := time.Since(s)
				mu.Lock()
				total++
				lats = append(lats, l)
				if l > *t {
					slows = append(slows, slow{id, seq, s.Sub(t0), l})
				}
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
	fmt.Printf("requests %d in %v; p50 %v p99 %v p999 %v max %v; slower than %v: %d\n", total, time.Since(t0),
		lats[len(lats)/2], lats[len(lats)*99/100], lats[len(lats)*999/1000], lats[len(lats)-1], *t, len(slows))
	sort.Slice(slows, func(i, j int) bool { return slows[i].start < slows[j].start })
	for _, s := range slows {
		fmt.Printf("conn %3d seq %4d start %6.2fs latency %6.2fs\n", s.conn, s.seq, s.start.Seconds(), s.lat.Seconds())
	}
}
