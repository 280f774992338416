// The upload bench's origin: POST /upload reads the whole request body and answers its length and SHA-256, so a
// relayed upload is checked byte for byte; GET /hello answers "hello" (readiness). Plain HTTP/1.1, like the
// harness's Go origin in ../shared/bench/backend.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18080", "listen address")
	flag.Parse()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello")
	})
	mux.HandleFunc("POST /upload", func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		n, err := io.CopyBuffer(h, r.Body, make([]byte, 256<<10))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "%d %s\n", n, hex.EncodeToString(h.Sum(nil)))
	})
	log.Fatal(http.ListenAndServe(*addr, mux))
}
