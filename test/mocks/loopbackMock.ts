/**
 * The common part of the loopback model-API mocks (openaiCompatibleMock.ts, responsesMock.ts): an
 * HTTP server on a free port of 127.0.0.1, the requests it recorded, and waiting for them. Each mock
 * adds its own routes and scripted responses in `handle`.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Base class of a mock server recording requests of type `R`. */
export abstract class LoopbackMock<R> {
  /** Every request received, in arrival order. */
  readonly requests: R[] = [];
  protected readonly server: http.Server = http.createServer((req, res) => this.handle(req, res));
  private readonly waiters = new Set<() => void>();

  /** @param defaultWaitMs how long `waitForRequests` waits unless told (ms). */
  protected constructor(private readonly defaultWaitMs: number) {}

  /** Serves one request (record it with `record`). */
  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse): void;

  /** Starts listening on a free port of 127.0.0.1. */
  protected listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  /** `http://127.0.0.1:PORT/v1`. */
  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  /** Records a request and wakes `waitForRequests`. */
  protected record(request: R): void {
    this.requests.push(request);
    for (const wake of [...this.waiters]) wake();
    this.waiters.clear();
  }

  /** Resolves once `count` requests arrived; rejects after `timeoutMs` ms. */
  async waitForRequests(count: number, timeoutMs = this.defaultWaitMs): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      if (Date.now() > end) throw new Error(`mock: expected ${count} requests, got ${this.requests.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.waiters.add(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Drops every connection and stops the server. */
  protected async closeServer(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
