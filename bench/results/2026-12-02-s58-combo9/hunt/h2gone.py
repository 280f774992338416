# h2gone.py PORT DELAY_MS HOLD_S: an h2c GET of /api/data?delay=DELAY_MS (and a second one beside), then the client
# closes its socket after HOLD_S seconds, whatever arrived (a client that goes away mid-exchange).
import socket, sys, time, h2.connection, h2.config
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True)); c.initiate_connection()
for _ in range(2):
    c.send_headers(c.get_next_available_stream_id(), [(':method', 'GET'), (':scheme', 'http'), (':authority', 'h'),
                   (':path', f'/api/data?delay={sys.argv[2]}')], end_stream=True)
s.sendall(c.data_to_send()); open('/tmp/combo9-sent', 'w').close(); time.sleep(float(sys.argv[3])); s.close(); print('client closed at', time.strftime('%T'))
