package io.loomgate.config;

import io.loomgate.http.Cidr;
import io.loomgate.http.FieldNamePatterns;
import io.loomgate.http.HttpLimits;
import io.loomgate.http2.Http2Settings;
import io.loomgate.ratelimit.RedisSettings;
import io.loomgate.server.ListenerSettings;
import io.loomgate.server.Transport;
import io.loomgate.threads.ThreadModel;
import io.loomgate.upstream.PoolSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads and validates a YAML gateway configuration (the format is in docs/configuration.md). Every refusal is a
 * {@link ConfigException} naming the file, the line, the key and what was expected; nothing is silently ignored.
 * Predicates and filters are only parsed here; {@link GatewayAssembly} builds (and checks) them through the
 * registries.
 */
public final class ConfigLoader {
    private static final List<String> ROOT_KEYS = List.of("server", "admin", "access-log", "upstream", "upstreams",
            "routes", "redis", "default-filters", "cors", "logging", "tracing");
    private static final List<String> SERVER_KEYS = List.of("address", "port", "threads", "platform-threads",
            "max-connections", "backlog", "header-timeout", "idle-timeout", "read-timeout", "drain-timeout",
            "linger-timeout", "trusted-proxies", "max-request-line", "max-header-size", "max-headers", "http2",
            "underscores-in-headers", "ssl", "http-redirect-port", "strip-request-headers", "transport");
    private static final List<String> HTTP2_KEYS = List.of("enabled", "max-concurrent-streams", "initial-window-size",
            "max-streams-per-connection", "max-resets-per-second", "max-control-frames-per-second");
    private static final List<String> ADMIN_KEYS = List.of("address", "port", "pinned-threshold", "ssl",
            "auth-token", "auth-token-file", "allowed-hosts", "probe-path");
    /** Shorter tokens can be guessed over the network; 32 hex digits ({@code openssl rand -hex 16}) is the floor. */
    static final int MIN_TOKEN_LENGTH = 32;
    private static final List<String> ACCESS_LOG_KEYS = List.of("enabled", "format");
    private static final List<String> UPSTREAM_KEYS = withSsl(PoolReader.KEYS);
    private static final List<String> REDIS_KEYS = List.of("url", "timeout", "max-connections", "ca-file",
            "failure-mode");
    private static final List<String> LOGGING_KEYS = List.of("format", "levels");
    private static final List<String> TRACING_KEYS = List.of("enabled", "endpoint", "sampler", "service-name",
            "queue-size");
    private static final List<String> LOG_LEVELS = List.of("trace", "debug", "info", "warn", "error", "off");

    private ConfigLoader() {
    }

    private static List<String> withSsl(List<String> poolKeys) {
        List<String> keys = new ArrayList<>(poolKeys);
        keys.add("ssl");
        return List.copyOf(keys);
    }

    /** Reads a file, substituting {@code ${ENV:default}} from the process environment. */
    public static GatewayConfig load(Path file) throws ConfigException {
        String name = file.toString();
        String yaml;
        try {
            yaml = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ConfigException(name, 0, "", "no such file");
        } catch (CharacterCodingException e) {
            throw new ConfigException(name, 0, "", "not UTF-8 text");
        } catch (IOException e) {
            throw new ConfigException(name, 0, "", "cannot read the file: " + e);
        }
        return parse(yaml, name, System.getenv(), file);
    }

    /** Parses YAML text (for the bundled demo config and tests); {@code name} is used in messages. */
    public static GatewayConfig parse(String yaml, String name, Map<String, String> env)
            throws ConfigException {
        Path source;
        try {
            source = Path.of(name);
        } catch (InvalidPathException e) {
            source = null;
        }
        return parse(yaml, name, env, source);
    }

    private static GatewayConfig parse(String yaml, String file, Map<String, String> env, Path source)
            throws ConfigException {
        YamlNode rootNode = ScgLayout.translate(YamlReader.read(yaml, file, env), file);
        Section root = Section.dotted(file, "", rootNode, 1, ROOT_KEYS);
        Section serverSection = Section.dotted(file, "server", root.node("server"), root.lineOf("server"),
                SERVER_KEYS);
        GatewayConfig.ServerSpec server = server(serverSection);
        Section adminSection = Section.dotted(file, "admin", root.node("admin"), root.lineOf("admin"), ADMIN_KEYS);
        GatewayConfig.AdminSpec admin = admin(adminSection, source);
        checkPortsDiffer(serverSection, server, adminSection, admin);
        GatewayConfig.AccessLogSpec accessLog = accessLog(Section.dotted(file, "access-log",
                root.node("access-log"), root.lineOf("access-log"), ACCESS_LOG_KEYS));
        Section upstreamSection = Section.dotted(file, "upstream", root.node("upstream"), root.lineOf("upstream"),
                UPSTREAM_KEYS);
        PoolSettings upstream = PoolReader.read(upstreamSection, PoolSettings.DEFAULTS.withLimits(server.listener().limits()));
        Map<String, UpstreamSpec> upstreams = UpstreamsReader.read(file, root, upstream);
        List<RouteSpec> routes = new RouteReader(file, upstreams).read(root);
        RedisSettings redis = redis(Section.dotted(file, "redis", root.node("redis"), root.lineOf("redis"),
                REDIS_KEYS), source);
        GatewayConfig.LoggingSpec logging = logging(file, Section.dotted(file, "logging", root.node("logging"),
                root.lineOf("logging"), LOGGING_KEYS));
        GatewayConfig.TracingSpec tracing = tracing(Section.dotted(file, "tracing", root.node("tracing"),
                root.lineOf("tracing"), TRACING_KEYS));
        return new GatewayConfig(source, server, admin, accessLog, upstream, upstreams, routes, redis,
                tls(new TlsReader(file, source), serverSection, adminSection, upstreamSection, server), logging,
                tracing);
    }

    private static GatewayConfig.TlsSpec tls(TlsReader reader, Section server, Section admin, Section upstream,
                                             GatewayConfig.ServerSpec spec) throws ConfigException {
        int serverPort = spec.listener().port();
        // ALPN: h2 first when server.http2 is on (ClientConnection then sees the client's preface), else http/1.1.
        var serverTls = reader.server(server, "server.ssl",
                spec.listener().http2().enabled() ? List.of("h2", "http/1.1") : List.of("http/1.1"));
        int redirect = server.integer("http-redirect-port", 0, 0, 65535);
        if (redirect != 0 && serverTls == null) {
            throw server.error("http-redirect-port", "redirects to https, so it needs server.ssl");
        }
        if (redirect != 0 && redirect == serverPort) {
            throw server.error("http-redirect-port", "is the same as server.port (" + serverPort + ")");
        }
        return new GatewayConfig.TlsSpec(serverTls, redirect, reader.server(admin, "admin.ssl", List.of("http/1.1")),
                reader.upstream(upstream));
    }

    private static GatewayConfig.ServerSpec server(Section s) throws ConfigException {
        GatewayConfig.ServerSpec spec = GatewayConfig.ServerSpec.DEFAULTS;
        ListenerSettings d = spec.listener();
        int maxConnections = s.integer("max-connections", d.maxConnections(), 1, Integer.MAX_VALUE);
        ListenerSettings listener = new ListenerSettings(
                address(s, d.address()),
                s.integer("port", d.port(), 0, 65535), // 0: any free port (tests, the demo)
                // As HAProxy does: room in the accept queue for every client allowed at once (issue 15)
                s.integer("backlog", Math.max(d.backlog(), maxConnections), 1, Integer.MAX_VALUE),
                maxConnections,
                s.duration("header-timeout", d.headerTimeout(), false),
                s.duration("idle-timeout", d.idleTimeout(), false),
                s.duration("read-timeout", d.readTimeout(), false),
                new HttpLimits(
                        s.integer("max-request-line", d.limits().maxRequestLineBytes(), 16, Integer.MAX_VALUE),
                        s.integer("max-header-size", d.limits().maxHeaderBytes(), 64, Integer.MAX_VALUE),
                        s.integer("max-headers", d.limits().maxHeaderCount(), 1, Integer.MAX_VALUE),
                        d.limits().maxChunkLineBytes(), d.limits().maxTrailerBytes()),
                http2(Section.dotted(s.file(), "server.http2", s.node("http2"), s.lineOf("http2"), HTTP2_KEYS),
                        d.http2()),
                s.bool("underscores-in-headers", d.underscoresInHeaders()),
                s.duration("linger-timeout", d.lingerTimeout(), false));
        return new GatewayConfig.ServerSpec(listener, threads(s), s.duration("drain-timeout", spec.drainTimeout(),
                true), trustedProxies(s), stripRequestHeaders(s, spec.stripRequestHeaders()),
                transport(s, spec.transport()));
    }

    /**
     * {@code server.transport: auto | jdk | epoll}; epoll is refused where it cannot run (not Linux, Java < 22, the
     * module loomgate-epoll absent), naming why; auto is resolved when the listener starts (one log line if jdk).
     */
    private static Transport transport(Section s, Transport fallback) throws ConfigException {
        String text = s.string("transport", fallback.name().toLowerCase(java.util.Locale.ROOT));
        Transport t = Transport.parse(text);
        if (t == null) {
            throw s.error("transport", "expected auto, jdk or epoll, got '" + text + "'");
        }
        String unavailable = t == Transport.EPOLL ? Transport.epollUnavailableReason() : null;
        if (unavailable != null) {
            throw s.error("transport", unavailable);
        }
        return t;
    }

    /**
     * {@code server.http2}: Spring Boot's key, but on by default (Spring Boot's is off): issue 12 asked for the default
     * to turn once HTTP/2 was solid, and it is (h2spec, the known attacks, gRPC, each tested). Turning it on costs an
     * HTTP/1.1 connection nothing but a look at its first bytes; {@code enabled: false} keeps a listener HTTP/1.1 only.
     */
    private static Http2Settings http2(Section s, Http2Settings d) throws ConfigException {
        return new Http2Settings(
                s.bool("enabled", d.enabled()),
                s.integer("max-concurrent-streams", d.maxConcurrentStreams(), 1, Integer.MAX_VALUE),
                s.integer("initial-window-size", d.initialWindowSize(), 1, Integer.MAX_VALUE),
                s.integer("max-streams-per-connection", d.maxStreamsPerConnection(), 1, Integer.MAX_VALUE),
                s.integer("max-resets-per-second", d.maxResetsPerSecond(), 1, Integer.MAX_VALUE),
                s.integer("max-control-frames-per-second", d.maxControlPerSecond(), 1, Integer.MAX_VALUE));
    }

    /**
     * {@code threads: platform} takes its size from {@code platform-threads} (default 200); {@code platform:N} says
     * it itself. {@code platform-threads} is accepted but unused with the other models, so one file can switch
     * models by editing one line.
     */
    private static ThreadModel threads(Section s) throws ConfigException {
        String text = s.string("threads", GatewayConfig.ServerSpec.DEFAULTS.threads().toString());
        ThreadModel model;
        try {
            model = ThreadModel.parse(text);
        } catch (IllegalArgumentException e) {
            throw s.error("threads", e.getMessage());
        }
        if (!s.has("platform-threads") || !(model instanceof ThreadModel.Platform written)) {
            return model;
        }
        int n = s.integer("platform-threads", ThreadModel.Platform.DEFAULT_THREADS, 1, Integer.MAX_VALUE);
        if (text.trim().equalsIgnoreCase("platform")) {
            return new ThreadModel.Platform(n);
        }
        if (written.threads() != n) {
            throw s.error("platform-threads", "is " + n + " but threads says '" + text
                    + "'; write threads: platform and size it here, or drop platform-threads");
        }
        return model;
    }

    /** {@code server.strip-request-headers}: a list written replaces the defaults ({@code []} strips nothing). */
    private static FieldNamePatterns stripRequestHeaders(Section s, FieldNamePatterns d) throws ConfigException {
        if (!s.has("strip-request-headers")) {
            return d;
        }
        List<YamlNode.Scalar> items = s.scalarList("strip-request-headers");
        List<String> names = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            try {
                names.add(FieldNamePatterns.checked(items.get(i).text()));
            } catch (IllegalArgumentException e) {
                throw s.error("strip-request-headers[" + i + "]", items.get(i).line(), e.getMessage());
            }
        }
        return new FieldNamePatterns(names);
    }

    private static List<Cidr> trustedProxies(Section s) throws ConfigException {
        List<Cidr> out = new ArrayList<>();
        List<YamlNode.Scalar> items = s.scalarList("trusted-proxies");
        for (int i = 0; i < items.size(); i++) {
            try {
                out.add(Cidr.parse(items.get(i).text()));
            } catch (IllegalArgumentException e) {
                throw s.error("trusted-proxies[" + i + "]", items.get(i).line(), e.getMessage());
            }
        }
        return List.copyOf(out);
    }

    private static GatewayConfig.AdminSpec admin(Section s, Path source) throws ConfigException {
        GatewayConfig.AdminSpec d = GatewayConfig.AdminSpec.DEFAULTS;
        List<String> hosts = new ArrayList<>();
        for (YamlNode.Scalar h : s.scalarList("allowed-hosts")) {
            String host = h.text().trim().toLowerCase(java.util.Locale.ROOT);
            if (host.isEmpty() || host.contains("/") || host.contains(" ")) {
                throw s.error("allowed-hosts", h.line(), "expected a host name such as loomgate-admin.ops.svc, got '"
                        + h.text() + "'");
            }
            hosts.add(host);
        }
        String probePath = s.string("probe-path", null);
        if (probePath != null && (!probePath.startsWith("/") || probePath.length() < 2 || probePath.endsWith("/")
                || probePath.contains("*") || probePath.contains("?"))) {
            throw s.error("probe-path", "expected a path such as /.loomgate/health (the main listener then answers "
                    + "/.loomgate/health/live and /.loomgate/health/ready), got '" + probePath + "'");
        }
        return new GatewayConfig.AdminSpec(address(s, d.address()), s.integer("port", d.port(), 0, 65535),
                s.duration("pinned-threshold", d.pinnedThreshold(), true), authToken(s, source), hosts, probePath);
    }

    /**
     * {@code admin.auth-token} (written as {@code ${LOOMGATE_ADMIN_TOKEN}} to take it from the environment) or
     * {@code admin.auth-token-file} (a Kubernetes Secret mounted as a file; one trailing newline is dropped).
     * Messages never show the token.
     */
    private static String authToken(Section s, Path source) throws ConfigException {
        if (s.has("auth-token") && s.has("auth-token-file")) {
            throw s.error("auth-token-file", "auth-token is set too (line " + s.lineOf("auth-token")
                    + "); give the token one way");
        }
        String token;
        String key;
        if (s.has("auth-token-file")) {
            key = "auth-token-file";
            String name = s.string(key, null);
            Path file = source == null || source.getParent() == null ? Path.of(name)
                    : source.getParent().resolve(name);
            try {
                token = Files.readString(file, StandardCharsets.UTF_8).strip();
            } catch (IOException | InvalidPathException e) {
                throw s.error(key, "cannot read the token file " + file + ": " + e.getMessage());
            }
        } else {
            key = "auth-token";
            token = s.string(key, null);
            if (token == null) {
                return null;
            }
            token = token.strip();
        }
        if (token.length() < MIN_TOKEN_LENGTH) {
            throw s.error(key, "the token has " + token.length() + " characters; use at least " + MIN_TOKEN_LENGTH
                    + " (openssl rand -hex 16 makes one)");
        }
        if (!token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            throw s.error(key, "the token must be printable ASCII without spaces (it travels in a header)");
        }
        return token;
    }

    /** A bind address, resolved now as the listener will resolve it, so a bad one fails here and not at start. */
    private static String address(Section s, String otherwise) throws ConfigException {
        String address = s.string("address", otherwise);
        try {
            InetAddress.getByName(address);
        } catch (UnknownHostException | SecurityException e) {
            throw s.error("address", "expected an IP address or a host name that resolves, got '" + address + "'");
        }
        return address;
    }

    /**
     * The gateway and the admin listener on one port would fail at start with "address in use", after the file was
     * accepted. Port 0 (any free port) never clashes; nor do two different specific addresses.
     */
    private static void checkPortsDiffer(Section serverSection, GatewayConfig.ServerSpec server, Section adminSection,
                                         GatewayConfig.AdminSpec admin) throws ConfigException {
        ListenerSettings listener = server.listener();
        if (!admin.enabled() || listener.port() == 0 || admin.port() != listener.port()) {
            return;
        }
        if (!isWildcard(listener.address()) && !isWildcard(admin.address())
                && !listener.address().equalsIgnoreCase(admin.address())) {
            return;
        }
        String where = serverSection.has("port") ? "(line " + serverSection.lineOf("port") + ")" : "(the default)";
        throw adminSection.error("port", admin.port() + " is also server.port " + where
                + "; the gateway and the admin listener need a port each");
    }

    private static boolean isWildcard(String address) {
        try {
            return InetAddress.getByName(address).isAnyLocalAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static GatewayConfig.AccessLogSpec accessLog(Section s) throws ConfigException {
        boolean enabled = s.bool("enabled", GatewayConfig.AccessLogSpec.DEFAULTS.enabled());
        String format = s.string("format", GatewayConfig.AccessLogSpec.DEFAULTS.format());
        if (!format.equals("combined") && !format.equals("json")) {
            throw s.error("format", "expected combined or json, got '" + format + "'");
        }
        return new GatewayConfig.AccessLogSpec(enabled, format);
    }

    /**
     * The {@code redis:} section, or null when it has no url (an empty {@code ${REDIS_URL:}} included): routes with
     * {@code store: redis} are then refused when they are built. A relative {@code ca-file} is read from the config
     * file's directory.
     */
    private static RedisSettings redis(Section s, Path source) throws ConfigException {
        YamlNode url = s.node("url");
        Duration timeout = s.duration("timeout", RedisSettings.DEFAULT_TIMEOUT, false);
        int maxConnections = s.integer("max-connections", RedisSettings.DEFAULT_MAX_CONNECTIONS, 1,
                Integer.MAX_VALUE);
        RedisSettings.FailureMode failureMode;
        try {
            failureMode = RedisSettings.FailureMode.parse(s.string("failure-mode", "open"));
        } catch (IllegalArgumentException e) {
            throw s.error("failure-mode", e.getMessage());
        }
        Path caFile = null;
        if (s.has("ca-file")) {
            caFile = Path.of(s.string("ca-file", null));
            if (!caFile.isAbsolute() && source != null && source.getParent() != null) {
                caFile = source.getParent().resolve(caFile);
            }
        }
        if (url == null || url instanceof YamlNode.Scalar sc && (sc.isNull() || sc.text().isBlank())) {
            if (caFile != null) {
                throw s.error("ca-file", "needs a rediss:// url");
            }
            return null;
        }
        String text = s.string("url", null);
        RedisSettings settings;
        try {
            settings = RedisSettings.parse(text, timeout, maxConnections, null);
        } catch (IllegalArgumentException e) {
            throw s.error(e.getMessage().startsWith("timeout") ? "timeout" : "url", e.getMessage());
        }
        if (caFile == null) {
            return settings.withFailureMode(failureMode);
        }
        if (!settings.tls()) {
            throw s.error("ca-file", "is for rediss:// (TLS); the url is " + settings.redacted());
        }
        try {
            return RedisSettings.parse(text, timeout, maxConnections, caFile).checkCaFile()
                    .withFailureMode(failureMode);
        } catch (IllegalArgumentException e) {
            throw s.error("ca-file", e.getMessage());
        }
    }

    /**
     * The {@code tracing:} section: off unless {@code enabled}; the endpoint an http(s) URL, the sampler a ratio from
     * 0 to 1. Checked whether enabled or not, so turning it on later is not the first time a typo is seen.
     */
    private static GatewayConfig.TracingSpec tracing(Section s) throws ConfigException {
        GatewayConfig.TracingSpec d = GatewayConfig.TracingSpec.OFF;
        boolean enabled = s.bool("enabled", d.enabled());
        String endpoint = s.string("endpoint", d.endpoint());
        try {
            java.net.URI uri = new java.net.URI(endpoint);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null) {
                throw s.error("endpoint", "expected an http:// or https:// URL of an OTLP HTTP receiver (e.g. "
                        + d.endpoint() + "), got '" + endpoint + "'");
            }
        } catch (java.net.URISyntaxException e) {
            throw s.error("endpoint", "not a URL: " + e.getMessage());
        }
        double ratio = d.sampler();
        if (s.has("sampler")) {
            String text = s.string("sampler", null);
            try {
                ratio = Double.parseDouble(text.trim());
            } catch (NumberFormatException e) {
                ratio = Double.NaN;
            }
            if (!(ratio >= 0 && ratio <= 1)) {
                throw s.error("sampler", "expected the ratio of new traces to sample, from 0.0 to 1.0 (e.g. 0.01), "
                        + "got '" + text + "'");
            }
        }
        String serviceName = s.string("service-name", d.serviceName());
        if (serviceName.isBlank()) {
            throw s.error("service-name", "expected a name, got nothing");
        }
        int queueSize = s.integer("queue-size", d.queueSize(), 1, 1 << 20);
        return new GatewayConfig.TracingSpec(enabled, endpoint, ratio, serviceName, queueSize);
    }

    private static GatewayConfig.LoggingSpec logging(String file, Section s) throws ConfigException {
        String format = s.string("format", "text");
        if (!format.equals("text") && !format.equals("json")) {
            throw s.error("format", "expected text or json, got '" + format + "'");
        }
        Map<String, String> levels = new java.util.LinkedHashMap<>();
        YamlNode n = s.node("levels");
        if (n instanceof YamlNode.Mapping m) {
            for (YamlNode.Entry e : m.entries()) {
                String level = e.value() instanceof YamlNode.Scalar v && !v.isNull()
                        ? v.text().trim().toLowerCase(java.util.Locale.ROOT) : "";
                if (!LOG_LEVELS.contains(level)) {
                    throw new ConfigException(file, e.line(), "logging.levels." + e.key(), "expected one of "
                            + String.join(", ", LOG_LEVELS) + ", got " + e.value().describe());
                }
                levels.put(e.key(), level);
            }
        } else if (n != null && !(n instanceof YamlNode.Scalar sc && sc.isNull())) {
            throw s.error("levels", "expected a mapping of logger name to level, e.g. io.loomgate.upstream: debug; got "
                    + n.describe());
        }
        return new GatewayConfig.LoggingSpec(format, levels);
    }
}
