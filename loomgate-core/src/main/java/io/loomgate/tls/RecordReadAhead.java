package io.loomgate.tls;

/**
 * A connected socket that can read ahead through a buffer of its own, for JSSE to be layered over it when it is not a
 * {@link RecordBufferedSocket} (the epoll transport's sockets to origins): JSSE reads each record in two reads, the
 * 5-byte header and then the body; through the buffer the first takes in whatever has arrived and the second is
 * served from it, one system call per record instead of two. {@link ClientTls#handshake} asks for it before it
 * layers JSSE, only for origins (the buffer is paid per pooled connection, not per client).
 */
public interface RecordReadAhead {
    /** Reads go through a buffer of {@code bytes} from now on; called before anything has been read. */
    void readAhead(int bytes);
}
