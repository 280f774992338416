package io.loomgate.lab.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bundled PostgreSQL's start when the port it was handed is taken before it binds (what another process can do
 * between the probe and the bind): the start goes on on another port, and the server it returns is its own (this
 * starts a real server, as 'nobody' when run as root).
 */
class LocalPostgresPortTest {

    @Test
    void aPortTakenBeforeTheServerBindsItIsLeftForAnother() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            List<Integer> handed = new ArrayList<>();
            LocalPostgres.Ports ports = () -> {
                int port = handed.isEmpty() ? taken.getLocalPort() : free();
                handed.add(port);
                return port;
            };
            try (LocalPostgres pg = LocalPostgres.start(5, ports)) {
                assertThat(handed).as("ports handed to the server").hasSize(2);
                assertThat(pg.port()).isEqualTo(handed.get(1)).isNotEqualTo(taken.getLocalPort());
                try (Connection c = DriverManager.getConnection(pg.jdbcUrl(), "postgres", "");
                     Statement st = c.createStatement();
                     ResultSet r = st.executeQuery("SHOW data_directory")) {
                    assertThat(r.next()).isTrue();
                    assertThat(r.getString(1)).as("the server on the port is this start's")
                            .isEqualTo(pg.workDir().resolve("data").toString());
                }
            }
        }
    }

    private static int free() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
