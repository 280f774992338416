package io.loomgate.http2;

/** The gateway YAML of the HTTP/2 tests in this package: h2c on, one route to ${ORIGIN}. */
final class H2cGatewayYaml {
    private H2cGatewayYaml() {
    }

    static String yaml() {
        return """
                server:
                  address: 127.0.0.1
                  port: 0
                  http2:
                    enabled: true
                admin:
                  port: 0
                routes:
                  - id: main
                    uri: ${ORIGIN}
                    predicates: [ "Path=/**" ]
                """;
    }
}
