/**
 * The takeover terminal's PTY, made inside the sandbox by the jail's python3 (its pty module; the
 * sandbox has no pty helper of its own): the helper forks /bin/sh -i on a new pseudo-terminal and
 * passes the terminal's output raw to its stdout. Its stdin carries frames, type (1 byte), length
 * (uint32), payload: 0 = keystrokes for the PTY, 1 = a resize (rows, cols as uint16), which it sets
 * with TIOCSWINSZ so the shell's foreground program gets SIGWINCH. Its stdin ending hangs up the shell.
 */
const source = `import os,pty,sys,select,struct,fcntl,termios,signal
rows,cols=int(sys.argv[1]),int(sys.argv[2])
pid,fd=pty.fork()
if pid==0:
    os.environ["TERM"]="xterm-256color"
    os.execv("/bin/sh",["/bin/sh","-i"])
def size(r,c):
    fcntl.ioctl(fd,termios.TIOCSWINSZ,struct.pack("HHHH",r,c,0,0))
size(rows,cols)
def out(d):
    while d:
        n=os.write(1,d);d=d[n:]
buf=b""
while True:
    r,_,_=select.select([0,fd],[],[])
    if fd in r:
        try:d=os.read(fd,65536)
        except OSError:break
        if not d:break
        out(d)
    if 0 in r:
        d=os.read(0,65536)
        if not d:break
        buf+=d
        while len(buf)>=5:
            n=struct.unpack(">I",buf[1:5])[0]
            if len(buf)<5+n:break
            t,p,buf=buf[0],buf[5:5+n],buf[5+n:]
            if t==0:
                while p:
                    k=os.write(fd,p);p=p[k:]
            elif t==1 and len(p)==4:size(*struct.unpack(">HH",p))
try:os.kill(pid,signal.SIGHUP)
except OSError:pass
`;

export function ptyHelperCommand(rows: number, cols: number): string[] {
  return ["/usr/bin/python3", "-c", source, String(rows), String(cols)];
}

export function ptyFrame(type: 0 | 1, payload: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(5 + payload.length);
  const view = new DataView(bytes.buffer);
  view.setUint8(0, type);
  view.setUint32(1, payload.length);
  bytes.set(payload, 5);
  return bytes;
}

export function resizeFrame(rows: number, cols: number): Uint8Array {
  const payload = new Uint8Array(4);
  const view = new DataView(payload.buffer);
  view.setUint16(0, rows);
  view.setUint16(2, cols);
  return ptyFrame(1, payload);
}
