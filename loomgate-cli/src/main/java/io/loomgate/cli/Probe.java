package io.loomgate.cli;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;

/**
 * The container image's health check: {@code java -cp loomgate.jar io.loomgate.cli.Probe URL} exits 0 when the URL
 * answers 200 within 3 s, 1 otherwise. The image has no curl; this uses only java.base.
 */
public final class Probe {
    private Probe() {
    }

    public static void main(String[] args) {
        String url = args.length > 0 ? args[0] : "http://127.0.0.1:9977/health/ready";
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
            c.setConnectTimeout(3000);
            c.setReadTimeout(3000);
            int status = c.getResponseCode();
            try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
                if (in != null) {
                    in.transferTo(System.out);
                }
            }
            System.exit(status == 200 ? 0 : 1);
        } catch (IOException | IllegalArgumentException e) {
            System.err.println("probe " + url + ": " + e);
            System.exit(1);
        }
    }
}
