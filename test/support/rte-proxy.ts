/**
 * A TCP proxy between a real RTE process and the real app, for tests of what happens on the
 * wire. It can cut and refuse connections (a network outage), drop what the app sends on the
 * open connections while the RTE's packets still arrive (lost acknowledgements), and read or
 * rewrite the socket.io packets going either way (an app or RTE that speaks differently).
 *
 * socket.io's websocket transport is plain RFC 6455 after the HTTP upgrade: frames carry
 * engine.io packets as text ("2" ping, "3" pong, "4" + a socket.io packet such as
 * `42/rte,7["job:items",{...}]`, an event with ack id 7, or `43/rte,7[...]`, its ack). Frames
 * from the RTE are masked (RFC 6455 5.3), frames from the app are not. Compression is not
 * negotiated (socket.io's perMessageDeflate is off by default); a compressed frame fails loudly.
 */
import net from "node:net";

export type Direction = "up" | "down";

/** A socket.io packet of the `/rte` namespace, decoded: EVENT (2) or ACK (3). */
export interface RtePacket {
  type: "event" | "ack";
  ackId: number | null;
  /** For an event: [name, ...arguments]; for an ack: the answer's arguments. */
  data: unknown[];
}

const PACKET = /^4([23])\/rte,(\d*)(\[[\s\S]*\])$/;

export function decodePacket(text: string): RtePacket | null {
  const match = PACKET.exec(text);
  if (!match) return null;
  return { type: match[1] === "2" ? "event" : "ack", ackId: match[2] ? Number(match[2]) : null, data: JSON.parse(match[3]!) as unknown[] };
}

export function encodePacket(packet: RtePacket): string {
  return `4${packet.type === "event" ? 2 : 3}/rte,${packet.ackId ?? ""}${JSON.stringify(packet.data)}`;
}

/** Changes a text packet going one way; returns it unchanged (the same string) to pass it on as is. */
export type Rewrite = (text: string, direction: Direction) => string;

interface Link {
  client: net.Socket;
  upstream: net.Socket;
  dropDown: boolean;
}

export class RteProxy {
  private readonly server: net.Server;
  private readonly links = new Set<Link>();
  private refusing = false;
  /** Every text packet seen, in order, each way (after any rewrite). */
  readonly packets: { direction: Direction; text: string }[] = [];
  rewrite: Rewrite | null = null;
  port = 0;

  constructor(private readonly targetPort: number) {
    this.server = net.createServer((client) => this.accept(client));
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return `http://127.0.0.1:${this.port}`;
  }

  /** Drops every open connection and refuses new ones until restore(). */
  cut(): void {
    this.refusing = true;
    for (const link of this.links) {
      link.client.destroy();
      link.upstream.destroy();
    }
  }

  restore(): void {
    this.refusing = false;
  }

  /**
   * From now on, what the app sends on the connections open now is dropped (its answers and
   * acknowledgements never arrive), while what the RTE sends still reaches the app. New
   * connections are not affected.
   */
  dropDownstream(): void {
    for (const link of this.links) link.dropDown = true;
  }

  /** The decoded socket.io events sent one way, optionally only those named `name`. */
  events(direction: Direction, name?: string): unknown[][] {
    return this.packets
      .filter((p) => p.direction === direction)
      .map((p) => decodePacket(p.text))
      .filter((p): p is RtePacket => p?.type === "event" && (name === undefined || p.data[0] === name))
      .map((p) => p.data);
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    const upstream = net.connect(this.targetPort, "127.0.0.1");
    const link: Link = { client, upstream, dropDown: false };
    this.links.add(link);
    for (const socket of [client, upstream]) {
      socket.on("error", () => undefined);
      socket.on("close", () => {
        this.links.delete(link);
        client.destroy();
        upstream.destroy();
      });
    }
    const up = new FrameStream(
      "up",
      (text) => this.pass(text, "up"),
      (bytes) => upstream.write(bytes),
    );
    const down = new FrameStream(
      "down",
      (text) => this.pass(text, "down"),
      (bytes) => {
        if (!link.dropDown) client.write(bytes);
      },
    );
    client.on("data", (chunk: Buffer) => up.push(chunk));
    upstream.on("data", (chunk: Buffer) => down.push(chunk));
  }

  private pass(text: string, direction: Direction): string {
    const out = this.rewrite ? this.rewrite(text, direction) : text;
    this.packets.push({ direction, text: out });
    return out;
  }
}

/**
 * One direction of one connection: the HTTP upgrade passes through untouched, then whole
 * WebSocket frames are decoded, their text handed to `onText` (which may change it), and
 * re-encoded (masked again with the frame's own key when it was masked).
 */
class FrameStream {
  private buffer = Buffer.alloc(0);
  private upgraded = false;

  constructor(
    private readonly direction: Direction,
    private readonly onText: (text: string) => string,
    private readonly forward: (bytes: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    if (!this.upgraded) {
      const end = this.buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      this.forward(this.buffer.subarray(0, end + 4));
      this.buffer = this.buffer.subarray(end + 4);
      this.upgraded = true;
    }
    for (;;) {
      const frame = this.nextFrame();
      if (!frame) return;
      this.forward(frame);
    }
  }

  private nextFrame(): Buffer | null {
    const b = this.buffer;
    if (b.length < 2) return null;
    const first = b[0]!;
    const masked = (b[1]! & 0x80) !== 0;
    let length = b[1]! & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (b.length < 4) return null;
      length = b.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (b.length < 10) return null;
      length = Number(b.readBigUInt64BE(2));
      offset = 10;
    }
    const key = masked ? b.subarray(offset, offset + 4) : null;
    if (masked) offset += 4;
    if (b.length < offset + length) return null;
    const raw = b.subarray(offset, offset + length);
    this.buffer = b.subarray(offset + length);
    const opcode = first & 0x0f;
    // Control frames, binary frames and continuations go through as they came.
    if (opcode !== 0x1 || (first & 0x80) === 0) return Buffer.from(b.subarray(0, offset + length));
    if ((first & 0x40) !== 0) throw new Error(`compressed WebSocket frame going ${this.direction}: the proxy cannot read it`);
    const text = unmask(raw, key).toString("utf8");
    const out = this.onText(text);
    if (out === text) return Buffer.from(b.subarray(0, offset + length));
    return encodeFrame(first, Buffer.from(out, "utf8"), key);
  }
}

function unmask(payload: Buffer, key: Buffer | null): Buffer {
  if (!key) return Buffer.from(payload);
  const out = Buffer.alloc(payload.length);
  for (let i = 0; i < payload.length; i++) out[i] = payload[i]! ^ key[i % 4]!;
  return out;
}

function encodeFrame(first: number, payload: Buffer, key: Buffer | null): Buffer {
  const maskBit = key ? 0x80 : 0;
  let header: Buffer;
  if (payload.length < 126) {
    header = Buffer.from([first, maskBit | payload.length]);
  } else if (payload.length < 65536) {
    header = Buffer.alloc(4);
    header[0] = first;
    header[1] = maskBit | 126;
    header.writeUInt16BE(payload.length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = first;
    header[1] = maskBit | 127;
    header.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  return Buffer.concat(key ? [header, key, unmask(payload, key)] : [header, payload]);
}
