package io.loomgate.http;

/** Status codes the gateway itself uses, and reason phrases for writing status lines. */
public final class Status {
    private Status() {
    }

    /** The standard reason phrase (RFC 9110 §15), or an empty string for codes without one. */
    public static String reason(int code) {
        return switch (code) {
            case 100 -> "Continue";
            case 101 -> "Switching Protocols";
            case 200 -> "OK";
            case 201 -> "Created";
            case 202 -> "Accepted";
            case 204 -> "No Content";
            case 206 -> "Partial Content";
            case 301 -> "Moved Permanently";
            case 302 -> "Found";
            case 303 -> "See Other";
            case 304 -> "Not Modified";
            case 307 -> "Temporary Redirect";
            case 308 -> "Permanent Redirect";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 411 -> "Length Required";
            case 413 -> "Content Too Large";
            case 414 -> "URI Too Long";
            case 417 -> "Expectation Failed";
            case 421 -> "Misdirected Request";
            case 426 -> "Upgrade Required";
            case 429 -> "Too Many Requests";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            case 501 -> "Not Implemented";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            case 505 -> "HTTP Version Not Supported";
            case 508 -> "Loop Detected"; // RFC 5842 §7.2: the gateway's answer to a forwarding loop
            default -> "";
        };
    }

    /** Responses that never carry a body, whatever their headers say (RFC 9110 §6.4.1). */
    public static boolean forbidsBody(int code) {
        return (code >= 100 && code < 200) || code == 204 || code == 304;
    }
}
