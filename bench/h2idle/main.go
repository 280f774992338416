// Command h2idle measures the memory a proxy holds per idle HTTP/2 connection (h2c, prior knowledge; with -tls, h2
// over TLS by ALPN).
//
// It opens -n connections; on each it sends the preface, an empty SETTINGS and one request (GET -path) on stream 1.
// With -mode=complete (the default) it reads that response to its end: the connection then holds one stream that
// has been used and closed, which is what "an idle HTTP/2 connection with one idle stream" means here (a client
// such as a browser or a gRPC channel keeps its connection after its request, waiting for the next one). With
// -mode=open it waits only for the server's SETTINGS ACK and leaves the stream open: give a -path the origin is slow
// to answer (the shared bench backend's /api/data?delay=600000) to measure a connection whose one stream is waiting.
//
// With -pid it samples the proxy's RSS (/proc/PID/status VmRSS) before the connections are opened and while they are
// held, and with -jcmd also the live heap (jcmd PID GC.class_histogram, which runs a full GC first), and prints the
// difference per connection and the classes that grew most. After the hold it checks every connection still answers
// a PING (complete mode), so a proxy that dropped connections is not credited with saving memory.
//
// Output: "READY ..." once every connection has been tried, "RSS ..." and "HEAP ..." lines, and a final "RESULT ..."
// line.
package main

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	frameData         = 0x0
	frameHeaders      = 0x1
	frameRstStream    = 0x3
	frameSettings     = 0x4
	framePing         = 0x6
	frameGoAway       = 0x7
	flagEndStream     = 0x1
	flagAck           = 0x1
	flagEndHeaders    = 0x4
	prefaceAndSetting = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
)

type conn struct {
	c net.Conn
	r *bufio.Reader
}

func main() {
	addr := flag.String("addr", "127.0.0.1:18081", "host:port of the proxy's h2c (prior knowledge) listener")
	path := flag.String("path", "/hello", "request path of the one stream on each connection")
	mode := flag.String("mode", "complete", "complete: read the response to its end; open: leave the stream open")
	n := flag.Int("n", 5000, "connections to open")
	parallel := flag.Int("parallel", 100, "connections opened concurrently")
	hold := flag.Duration("hold", 5*time.Second, "how long to hold the idle connections before sampling")
	timeout := flag.Duration("timeout", 10*time.Second, "dial and per-connection setup timeout")
	pid := flag.Int("pid", 0, "the proxy's process id: sample its RSS before and while the connections are held")
	jcmd := flag.String("jcmd", "", "path of jcmd: also sample the JVM's live heap (GC.class_histogram)")
	top := flag.Int("top", 15, "classes listed by growth")
	useTLS := flag.Bool("tls", false, "speak TLS and ask for h2 by ALPN (the proxy's certificate is not verified)")
	flag.Parse()
	if *mode != "complete" && *mode != "open" {
		fmt.Fprintln(os.Stderr, "-mode is complete or open")
		os.Exit(2)
	}

	var rss0 int64
	var heap0 map[string]int64
	if *pid > 0 {
		if *jcmd != "" {
			heap0 = histogram(*jcmd, *pid)
		}
		rss0 = rss(*pid)
	}

	req := requestFrames(*addr, *path)
	conns := make([]*conn, *n)
	var failed atomic.Int64
	var firstErr atomic.Value
	start := time.Now()
	run(*n, *parallel, func(i int) {
		c, err := net.DialTimeout("tcp", *addr, *timeout)
		if err == nil && *useTLS {
			c, err = overTLS(c, *timeout)
		}
		if err == nil {
			cc := &conn{c: c, r: bufio.NewReaderSize(c, 1024)}
			if err = setUp(cc, req, *mode == "complete", *timeout); err == nil {
				conns[i] = cc
				return
			}
			c.Close()
		}
		failed.Add(1)
		firstErr.CompareAndSwap(nil, err.Error())
	})
	opened := int64(*n) - failed.Load()
	fmt.Printf("READY opened=%d failed=%d open_s=%.2f mode=%s path=%s\n", opened, failed.Load(),
		time.Since(start).Seconds(), *mode, *path)
	os.Stdout.Sync()

	time.Sleep(*hold)
	var heapHeld map[string]int64
	if *pid > 0 && opened > 0 {
		var heap1 map[string]int64
		if *jcmd != "" {
			heap1 = histogram(*jcmd, *pid) // first, so both RSS samples follow a full GC
			heapHeld = heap1
		}
		rss1 := rss(*pid)
		fmt.Printf("RSS before_kb=%d held_kb=%d per_connection_bytes=%d\n", rss0/1024, rss1/1024,
			(rss1-rss0)/opened)
		if heap1 != nil {
			report(heap0, heap1, opened, *top)
		}
	}

	var alive atomic.Int64
	if *mode == "complete" {
		run(*n, *parallel, func(i int) {
			if cc := conns[i]; cc != nil {
				if err := ping(cc, *timeout); err == nil {
					alive.Add(1)
				} else {
					firstErr.CompareAndSwap(nil, "after hold: "+err.Error())
				}
			}
		})
	}
	for _, cc := range conns {
		if cc != nil {
			cc.c.Close()
		}
	}
	if *pid > 0 && *jcmd != "" && opened > 0 && heapHeld != nil {
		// What the connections held, from the other side: the live heap while held against after they closed
		// (the proxy has had time to see every FIN). Unlike before-vs-held it does not count what the warm-up
		// left behind and the hold freed (a JIT's or JFR's working set), which can shrink the first figure.
		time.Sleep(3 * time.Second)
		heapAfter := histogram(*jcmd, *pid)
		fmt.Printf("HEAP_RELEASED held_bytes=%d after_bytes=%d per_connection_bytes=%d\n", heapHeld["(total)"],
			heapAfter["(total)"], (heapHeld["(total)"]-heapAfter["(total)"])/opened)
	}
	e, _ := firstErr.Load().(string)
	fmt.Printf("RESULT requested=%d opened=%d failed=%d alive_after_hold=%d first_error=%q\n",
		*n, opened, failed.Load(), alive.Load(), e)
}

// requestFrames is the preface, an empty SETTINGS and HEADERS(stream 1, END_STREAM) for GET path, HPACK-coded
// without Huffman (RFC 7541 §6.1, §6.2), so no HPACK library is needed. Like curl, browsers and Go's client, it adds
// :authority, user-agent and accept to the dynamic table, so the server's decoder holds what real clients make it
// hold for the connection's life.
func requestFrames(authority, path string) []byte {
	var block bytes.Buffer
	block.WriteByte(0x82)                  // :method GET (static 2)
	block.WriteByte(0x86)                  // :scheme http (static 6)
	literal(&block, 0x00|4, path)          // :path, without indexing
	literal(&block, 0x40|1, authority)     // :authority, incremental indexing
	literal(&block, 0x40|58, "h2idle/1.0") // user-agent, incremental indexing
	literal(&block, 0x40|19, "*/*")        // accept, incremental indexing
	var b bytes.Buffer
	b.WriteString(prefaceAndSetting)
	b.Write(frameHeader(0, frameSettings, 0, 0))
	b.Write(frameHeader(block.Len(), frameHeaders, flagEndStream|flagEndHeaders, 1))
	b.Write(block.Bytes())
	return b.Bytes()
}

// literal writes a literal field whose first byte (representation bits and a static name index that fits its
// prefix) is given, and whose value is raw.
func literal(b *bytes.Buffer, first int, value string) {
	b.WriteByte(byte(first))
	if len(value) >= 127 {
		panic("value too long for this small encoder")
	}
	b.WriteByte(byte(len(value)))
	b.WriteString(value)
}

func frameHeader(length, typ, flags, stream int) []byte {
	h := make([]byte, 9)
	h[0], h[1], h[2] = byte(length>>16), byte(length>>8), byte(length)
	h[3], h[4] = byte(typ), byte(flags)
	binary.BigEndian.PutUint32(h[5:], uint32(stream))
	return h
}

// setUp sends the request and reads frames until the server acknowledged our SETTINGS and (complete mode) stream 1
// has ended with a 200 response. It answers the server's SETTINGS with an ACK, as a client must.
func setUp(cc *conn, req []byte, complete bool, timeout time.Duration) error {
	cc.c.SetDeadline(time.Now().Add(timeout))
	defer cc.c.SetDeadline(time.Time{})
	if _, err := cc.c.Write(req); err != nil {
		return err
	}
	acked, ended, status := false, !complete, !complete
	for !acked || !ended {
		typ, flags, stream, payload, err := readFrame(cc.r)
		if err != nil {
			return err
		}
		switch typ {
		case frameSettings:
			if flags&flagAck != 0 {
				acked = true
			} else if _, err := cc.c.Write(frameHeader(0, frameSettings, flagAck, 0)); err != nil {
				return err
			}
		case frameHeaders:
			if stream == 1 && !status {
				// :status 200 is static entry 8: the server's first field, indexed (0x88).
				if len(payload) == 0 || payload[0] != 0x88 {
					return fmt.Errorf("response head is not :status 200 (block starts % x)", first(payload, 8))
				}
				status = true
			}
			if stream == 1 && flags&flagEndStream != 0 {
				ended = true
			}
		case frameData:
			if stream == 1 && flags&flagEndStream != 0 {
				ended = true
			}
		case frameRstStream:
			return fmt.Errorf("RST_STREAM on stream %d", stream)
		case frameGoAway:
			return fmt.Errorf("GOAWAY: %q", first(payload[min(8, len(payload)):], 200))
		}
	}
	return nil
}

// ping checks a held connection still answers.
func ping(cc *conn, timeout time.Duration) error {
	cc.c.SetDeadline(time.Now().Add(timeout))
	payload := []byte("h2idle!!")
	if _, err := cc.c.Write(append(frameHeader(8, framePing, 0, 0), payload...)); err != nil {
		return err
	}
	for {
		typ, flags, _, p, err := readFrame(cc.r)
		if err != nil {
			return err
		}
		if typ == frameGoAway {
			return fmt.Errorf("GOAWAY: %q", first(p[min(8, len(p)):], 200))
		}
		if typ == framePing && flags&flagAck != 0 && bytes.Equal(p, payload) {
			return nil
		}
	}
}

func readFrame(r *bufio.Reader) (typ, flags, stream int, payload []byte, err error) {
	var h [9]byte
	if _, err = io.ReadFull(r, h[:]); err != nil {
		return
	}
	length := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
	typ, flags = int(h[3]), int(h[4])
	stream = int(binary.BigEndian.Uint32(h[5:]) & 0x7fffffff)
	payload = make([]byte, length)
	_, err = io.ReadFull(r, payload)
	return
}

func first(b []byte, n int) []byte {
	return b[:min(n, len(b))]
}

// run calls f(0..n-1) on at most p goroutines at once.
func run(n, p int, f func(int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, p)
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}(i)
	}
	wg.Wait()
}

func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		fail(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	fail(errors.New("no VmRSS in /proc/PID/status"))
	return 0
}

// histogram is the live heap by class: jcmd's GC.class_histogram runs a full GC, then counts what is reachable.
// Before it, a full GC and the finalizers it queued run: Conscrypt's native-backed objects (its SSL, BIO and
// session handles) are freed by finalizers, so a closed connection's engine stays reachable until one full GC
// has found it dead and its finalizer has run, and without this the warm-up's closed connections would still be
// in the first sample and the hold's in the last.
func histogram(jcmd string, pid int) map[string]int64 {
	for _, cmd := range []string{"GC.run", "GC.run_finalization"} {
		if err := exec.Command(jcmd, strconv.Itoa(pid), cmd).Run(); err != nil {
			fail(fmt.Errorf("jcmd %s: %v", cmd, err))
		}
	}
	out, err := exec.Command(jcmd, strconv.Itoa(pid), "GC.class_histogram").Output()
	if err != nil {
		fail(fmt.Errorf("jcmd GC.class_histogram: %v", err))
	}
	h := map[string]int64{}
	var total int64
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		// Filler arrays are dead space, not objects: the serial collector's full GC leaves some garbage where it
		// lies instead of moving everything after it (MarkSweepDeadRatio), and the histogram counts the filler.
		// Its size swings by megabytes between samples, so it is left out of every figure.
		if len(f) >= 4 && strings.HasSuffix(f[0], ":") && f[3] != "[Ljdk.internal.vm.FillerElement;" {
			bytes, _ := strconv.ParseInt(f[2], 10, 64)
			h[f[3]] += bytes
			total += bytes
		}
	}
	h["(total)"] = total
	return h
}

func report(before, held map[string]int64, conns int64, top int) {
	total := held["(total)"] - before["(total)"]
	fmt.Printf("HEAP before_bytes=%d held_bytes=%d per_connection_bytes=%d\n", before["(total)"],
		held["(total)"], total/conns)
	type growth struct {
		class string
		bytes int64
	}
	var g []growth
	for c, b := range held {
		if c != "(total)" {
			g = append(g, growth{c, b - before[c]})
		}
	}
	sort.Slice(g, func(i, j int) bool { return g[i].bytes > g[j].bytes })
	for i := 0; i < top && i < len(g); i++ {
		fmt.Printf("HEAP class=%s per_connection_bytes=%.1f\n", g[i].class, float64(g[i].bytes)/float64(conns))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "h2idle:", err)
	os.Exit(1)
}

// overTLS runs a TLS handshake over c offering only h2, and fails unless the proxy chose it.
func overTLS(c net.Conn, timeout time.Duration) (net.Conn, error) {
	t := tls.Client(c, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"h2"}})
	t.SetDeadline(time.Now().Add(timeout))
	if err := t.Handshake(); err != nil {
		c.Close()
		return nil, err
	}
	t.SetDeadline(time.Time{})
	if p := t.ConnectionState().NegotiatedProtocol; p != "h2" {
		c.Close()
		return nil, fmt.Errorf("ALPN chose %q, not h2", p)
	}
	return t, nil
}
