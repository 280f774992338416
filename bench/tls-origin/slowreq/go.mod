module slowreq
go 1.21
