/** A loopback TCP proxy alternating between `ports` per accepted connection. */
export declare function roundRobinProxy(ports: number[]): Promise<{ port: number; close(): Promise<void> }>;
