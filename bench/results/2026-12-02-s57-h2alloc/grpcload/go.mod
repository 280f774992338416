module grpcload

go 1.24
