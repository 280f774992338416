package io.loomgate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.loomgate.threads.ConnectionExecutors;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A headless Chromium (Debian's {@code chromium} package, or the binary named by {@code LOOMGATE_CHROMIUM}) driven
 * over the Chrome DevTools Protocol with the JDK's own WebSocket client: one page, JavaScript evaluation and
 * screenshots, with no driver or browser download. Lifecycle: {@link #find()} → {@link #start} → {@link #open}
 * → {@link #close()}.
 */
final class HeadlessChromium implements AutoCloseable {
    private static final List<String> CANDIDATES = List.of("chromium", "chromium-browser", "google-chrome");
    private static final Pattern DEVTOOLS = Pattern.compile("DevTools listening on (ws://[^\\s]+)");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final Path profile;
    private final String httpBase;
    private final HttpClient http = HttpClient.newHttpClient();
    private WebSocket socket;
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger();

    /** The Chromium binary, or empty when none is installed. */
    static Optional<Path> find() {
        String configured = System.getenv("LOOMGATE_CHROMIUM");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured)).filter(Files::isExecutable);
        }
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        for (String name : CANDIDATES) {
            for (String dir : path.split(":")) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    private HeadlessChromium(Process process, Path profile, String httpBase) {
        this.process = process;
        this.profile = profile;
        this.httpBase = httpBase;
    }

    static HeadlessChromium start(Path binary, int width, int height) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("loomgate-chromium");
        Process p = new ProcessBuilder(binary.toString(), "--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--hide-scrollbars", "--remote-debugging-port=0",
                "--remote-allow-origins=*", "--window-size=" + width + "," + height,
                "--user-data-dir=" + profile, "about:blank")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        String line;
        StringBuilder seen = new StringBuilder();
        while ((line = err.readLine()) != null) {
            Matcher m = DEVTOOLS.matcher(line);
            if (m.find()) {
                URI ws = URI.create(m.group(1));
                drainInBackground(err);
                return new HeadlessChromium(p, profile, "http://" + ws.getHost() + ":" + ws.getPort());
            }
            seen.append(line).append('\n');
            if (System.nanoTime() > deadline) {
                break;
            }
        }
        p.destroyForcibly();
        throw new IOException("chromium did not open its DevTools port; it said:\n" + seen);
    }

    /** Opens a page at this URL and attaches to it. */
    HeadlessChromium open(String url) throws Exception {
        HttpRequest newPage = HttpRequest.newBuilder(
                        URI.create(httpBase + "/json/new?" + URLEncoder.encode(url, StandardCharsets.UTF_8)))
                .PUT(HttpRequest.BodyPublishers.noBody()).timeout(TIMEOUT).build();
        HttpResponse<String> created = http.send(newPage, HttpResponse.BodyHandlers.ofString());
        if (created.statusCode() != 200) {
            throw new IOException("chromium refused a new page: " + created.statusCode() + " " + created.body());
        }
        String wsUrl = JSON.readTree(created.body()).get("webSocketDebuggerUrl").asText();
        socket = http.newWebSocketBuilder().buildAsync(URI.create(wsUrl), new Replies()).get(30, TimeUnit.SECONDS);
        return this;
    }

    /** The value of a JavaScript expression in the page, as JSON. */
    JsonNode evaluate(String expression) throws Exception {
        ObjectNode params = JSON.createObjectNode().put("expression", expression).put("returnByValue", true);
        JsonNode result = call("Runtime.evaluate", params);
        if (result.has("exceptionDetails")) {
            throw new IllegalStateException("page script failed: " + result.get("exceptionDetails"));
        }
        return result.get("result").path("value");
    }

    byte[] screenshotPng() throws Exception {
        JsonNode r = call("Page.captureScreenshot", JSON.createObjectNode().put("format", "png")
                .put("captureBeyondViewport", true));
        return Base64.getDecoder().decode(r.get("data").asText());
    }

    private JsonNode call(String method, ObjectNode params) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> reply = new CompletableFuture<>();
        pending.put(id, reply);
        ObjectNode message = JSON.createObjectNode().put("id", id).put("method", method);
        message.set("params", params);
        socket.sendText(JSON.writeValueAsString(message), true).get(30, TimeUnit.SECONDS);
        JsonNode r = reply.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (r.has("error")) {
            throw new IllegalStateException(method + " failed: " + r.get("error"));
        }
        return r.get("result");
    }

    @Override
    public void close() throws IOException {
        if (socket != null) {
            socket.abort();
        }
        // Chromium's helpers (renderer, network service) outlive the browser process for a moment and keep writing
        // into the profile (a file written aside and renamed): wait for all of them before the profile goes.
        List<ProcessHandle> tree = process.descendants().toList();
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            for (ProcessHandle helper : tree) {
                helper.destroy();
                helper.onExit().get(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            tree.forEach(ProcessHandle::destroyForcibly);
        }
        try (Stream<Path> files = Files.walk(profile)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        } catch (IOException | UncheckedIOException e) {
            // a profile file still locked or renamed by a dying helper; the temp directory is the OS's to clean
        }
    }

    /** Chromium keeps writing to stderr; unread, the pipe would fill and stall it. */
    private static void drainInBackground(BufferedReader err) {
        ConnectionExecutors.startDaemon("chromium-stderr", () -> {
            try {
                while (err.readLine() != null) {
                    // discarded: only the DevTools line mattered
                }
            } catch (IOException e) {
                // the process ended
            }
        });
    }

    /** Collects frames (a message may arrive in several) and completes the call with the matching id. */
    private final class Replies implements WebSocket.Listener {
        private final StringBuilder partial = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                try {
                    JsonNode message = JSON.readTree(text);
                    if (message.has("id")) {
                        CompletableFuture<JsonNode> reply = pending.remove(message.get("id").asInt());
                        if (reply != null) {
                            reply.complete(message);
                        }
                    }
                } catch (IOException e) {
                    pending.values().forEach(f -> f.completeExceptionally(e));
                }
            }
            ws.request(1);
            return null;
        }
    }
}
