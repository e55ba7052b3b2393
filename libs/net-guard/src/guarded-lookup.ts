import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { blockedRange } from './blocked-range';
import { blocked } from './check-url';
import { isAllowedHost, type NetGuardPolicy } from './net-guard-policy';

/**
 * A `lookup` for sockets (http/https agents, `net.connect`) that refuses a connection when
 * the host resolves to a blocked range at connect time, so DNS rebinding between the URL
 * check and the request cannot reach an internal address.
 */
export function guardedLookup(policy: NetGuardPolicy): LookupFunction {
  return ((
    hostname: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as LookupAddress[];
      if (!isAllowedHost(policy, hostname)) {
        for (const { address } of list) {
          const range = blockedRange(address);
          if (range) return callback(blocked(undefined, hostname, address, range) as NodeJS.ErrnoException, '');
        }
      }
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}
