module loomgate.bench/h2idle

go 1.22
