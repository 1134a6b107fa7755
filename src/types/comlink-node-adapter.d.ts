declare module 'comlink/dist/esm/node-adapter.mjs' {
  import type { Endpoint } from 'comlink';
  interface NodeEndpointLike {
    postMessage(message: any, transfer?: any): void; // eslint-disable-line @typescript-eslint/no-explicit-any
    on(type: string, listener: (value: any) => void): unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
    off(type: string, listener: (value: any) => void): unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
    start?: () => void;
  }
  export default function nodeEndpoint(nep: NodeEndpointLike): Endpoint;
}
