import { ClientProxy, type MsPattern, type ReadPacket, type WritePacket } from '@nestjs/microservices';
import { type InProcessBus } from './in-process-bus';

/** The client side of the in-process transport: a ClientProxy whose wire is the bus. */
export class InProcessClient extends ClientProxy {
  constructor(private readonly bus: InProcessBus) {
    super();
  }

  async connect(): Promise<void> {
    return undefined;
  }

  close(): void {
    return undefined;
  }

  unwrap<T>(): T {
    return this.bus as T;
  }

  protected publish(packet: ReadPacket, callback: (packet: WritePacket) => void): () => void {
    return this.bus.request(this.normalizePattern(packet.pattern as MsPattern), packet.data, callback);
  }

  protected async dispatchEvent<T>(packet: ReadPacket): Promise<T> {
    await this.bus.publish(this.normalizePattern(packet.pattern as MsPattern), packet.data);
    return undefined as T;
  }
}
