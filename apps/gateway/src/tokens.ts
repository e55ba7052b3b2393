/** Nest injection tokens of the gateway. */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
export const GATEWAY_LOGGER = Symbol('GATEWAY_LOGGER');
