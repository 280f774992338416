module loomgate.io/bench/upload/sink

go 1.22
