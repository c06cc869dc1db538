package encbench;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import de.bwaldvogel.mongo.bson.Document;
import io.netty.channel.Channel;

import java.io.ByteArrayInputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Starts mongo-java-server on a loopback port, optionally with TLS, and
 * prints "listening HOST:PORT" once it accepts connections. It runs until
 * stdin closes or it is signalled, so a test that dies takes it along;
 * with --daemon (encbench sandboxes) only a signal stops it.
 *
 * Arguments: [--port N] [--tls-cert chain.pem --tls-key key.pem] [--daemon]
 */
public final class MongoTestServer {

    /** Answers `hello` (current drivers use it) the way it answers isMaster. */
    static final class Backend extends MemoryBackend {
        @Override
        public Document handleCommand(Channel channel, String database, String command, Document query) {
            if (command.equalsIgnoreCase("hello")) {
                Document reply = super.handleCommand(channel, database, "ismaster", query);
                reply.put("isWritablePrimary", Boolean.TRUE);
                reply.put("helloOk", Boolean.TRUE);
                return reply;
            }
            Document reply = super.handleCommand(channel, database, command, query);
            if (command.equalsIgnoreCase("ismaster")) {
                reply.put("helloOk", Boolean.TRUE);
            }
            if (command.equalsIgnoreCase("buildinfo")) {
                // Lets encbench label results as not measured on mongod.
                reply.put("encbenchTestServer", "mongo-java-server 1.47.0, in-memory backend");
            }
            return reply;
        }
    }

    public static void main(String[] args) throws Exception {
        int port = 0;
        String certFile = null;
        String keyFile = null;
        boolean daemon = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--tls-cert" -> certFile = args[++i];
                case "--tls-key" -> keyFile = args[++i];
                case "--daemon" -> daemon = true;
                default -> {
                    System.err.println("mongo-test-server: unknown argument " + args[i] + " (use --port N, --tls-cert FILE, --tls-key FILE, --daemon)");
                    System.exit(2);
                }
            }
        }
        if ((certFile == null) != (keyFile == null)) {
            System.err.println("mongo-test-server: --tls-cert and --tls-key go together");
            System.exit(2);
        }
        Backend backend = new Backend();
        // Current drivers refuse servers below wire version 9 (MongoDB 4.4);
        // the library's newest preset reports 8.
        backend.version(new MongoVersion() {
            @Override
            public List<Integer> getVersionArray() {
                return List.of(5, 0, 0);
            }

            @Override
            public int getWireVersion() {
                return 13;
            }
        });
        MongoServer server = new MongoServer(backend);
        if (certFile != null) {
            server.enableSsl(readKey(Path.of(keyFile)), null, readChain(Path.of(certFile)));
        }
        server.bind(new InetSocketAddress("127.0.0.1", port));
        InetSocketAddress addr = server.getLocalAddress();
        System.out.println("listening " + addr.getHostString() + ":" + addr.getPort());
        System.out.flush();
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
        if (daemon) {
            done.await(); // until a signal runs the shutdown hook
        }
        Thread stdinWatch = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // keep reading until the parent closes our stdin
                }
            } catch (Exception ignored) {
                // a broken pipe means the parent is gone
            }
            done.countDown();
        });
        stdinWatch.setDaemon(true);
        stdinWatch.start();
        done.await();
        server.shutdownNow();
        System.exit(0);
    }

    private static byte[] pemBlock(String pem, String type) {
        String begin = "-----BEGIN " + type + "-----";
        String end = "-----END " + type + "-----";
        int b = pem.indexOf(begin);
        int e = pem.indexOf(end, b);
        if (b < 0 || e < 0) {
            throw new IllegalArgumentException("no " + type + " block");
        }
        String body = pem.substring(b + begin.length(), e).replaceAll("\\s", "");
        return Base64.getDecoder().decode(body);
    }

    private static PrivateKey readKey(Path file) throws Exception {
        byte[] der = pemBlock(Files.readString(file, StandardCharsets.US_ASCII), "PRIVATE KEY");
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String alg : new String[] {"EC", "RSA"}) {
            try {
                return KeyFactory.getInstance(alg).generatePrivate(spec);
            } catch (Exception ignored) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException(file + " holds neither an EC nor an RSA PKCS#8 key");
    }

    private static X509Certificate[] readChain(Path file) throws Exception {
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        List<X509Certificate> out = new ArrayList<>();
        for (var c : cf.generateCertificates(new ByteArrayInputStream(Files.readAllBytes(file)))) {
            out.add((X509Certificate) c);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(file + " holds no certificate");
        }
        return out.toArray(new X509Certificate[0]);
    }
}
