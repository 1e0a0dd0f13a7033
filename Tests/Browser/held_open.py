"""What a page open on the phone holds on the board: the event stream (`GET /api/events`), the
AR view's layout stream (`GET /api/layout`) and an idle keep-alive connection. Prints READY once
all three are open, then waits until the daemon closes them (the test sends SIGTERM) and says
how long each took to close after the first did."""
import socket
import time

from webcheck import Board, Checks, arguments, result

args = arguments()
board = Board(args)
checks = Checks()
check = checks.check


def opened(request):
    s = board.context.wrap_socket(socket.create_connection((board.host, board.port), timeout=30), server_hostname=board.host)
    s.sendall(request.encode())
    reply = s.recv(65536)
    check(b" 200 " in reply.split(b"\r\n", 1)[0], f"{request.splitlines()[0]}: {reply[:120]!r}")
    return s


auth = f"Host: {board.host}:{board.port}\r\nAuthorization: Bearer {board.token}\r\n"
held = {
    "events": opened(f"GET /api/events?since=0 HTTP/1.1\r\n{auth}\r\n"),
    "layout": opened(f"GET /api/layout?screen=360,740&fov=60,90 HTTP/1.1\r\n{auth}\r\n"),
    "keep-alive": opened(f"GET /api/web.json HTTP/1.1\r\n{auth}\r\n"),
}
print("READY", flush=True)
closed = {}
for name, s in held.items():
    s.settimeout(30)
    try:
        while s.recv(65536):
            pass
    except OSError:
        pass
    closed[name] = time.time()
    s.close()
first = min(closed.values())
result(**{f"closed_{k}_after_first_s": round(v - first, 2) for k, v in closed.items()})
checks.done()
