package com.example.gateway;

import io.loomgate.Loomgate;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * An application that runs Loomgate inside its own {@code main}, with a filter of its own named {@code Audit} in the
 * YAML: {@code java -cp ... com.example.gateway.AuditedGateway gateway.yaml}. SIGTERM drains and exits.
 */
public final class AuditedGateway {
    private AuditedGateway() {
    }

    public static void main(String[] args) throws Exception {
        Path config = Path.of(args.length > 0 ? args[0] : "gateway.yaml");
        Loomgate gateway = Loomgate.builder()
                .config(config)
                .filter("Audit", new AuditFilterFactory(System.out::println))
                .start();
        System.out.println("audited gateway serving on port " + gateway.port() + ", routes " + gateway.routeIds());
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                gateway.drain(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            stopped.countDown();
        }));
        stopped.await();
    }
}
