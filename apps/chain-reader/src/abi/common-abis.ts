import { parseAbi } from 'viem';

/** ERC-20 reads plus the write functions (so a call to them is refused as non-view, not "unknown"). */
export const ERC20_ABI = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'function transferFrom(address from, address to, uint256 amount) returns (bool)',
]);

/** bytes32 variants of name/symbol (early tokens such as MKR). */
export const ERC20_BYTES32_ABI = parseAbi(['function name() view returns (bytes32)', 'function symbol() view returns (bytes32)']);

export const ERC721_ABI = parseAbi([
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function tokenURI(uint256 tokenId) view returns (string)',
  'function getApproved(uint256 tokenId) view returns (address)',
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
  'function supportsInterface(bytes4 interfaceId) view returns (bool)',
]);

/** The view surface of IUniswapV3Pool. */
export const UNISWAP_V3_POOL_ABI = parseAbi([
  'function factory() view returns (address)',
  'function token0() view returns (address)',
  'function token1() view returns (address)',
  'function fee() view returns (uint24)',
  'function tickSpacing() view returns (int24)',
  'function maxLiquidityPerTick() view returns (uint128)',
  'function slot0() view returns (uint160 sqrtPriceX96, int24 tick, uint16 observationIndex, uint16 observationCardinality, uint16 observationCardinalityNext, uint8 feeProtocol, bool unlocked)',
  'function liquidity() view returns (uint128)',
  'function feeGrowthGlobal0X128() view returns (uint256)',
  'function feeGrowthGlobal1X128() view returns (uint256)',
  'function protocolFees() view returns (uint128 token0, uint128 token1)',
  'function ticks(int24 tick) view returns (uint128 liquidityGross, int128 liquidityNet, uint256 feeGrowthOutside0X128, uint256 feeGrowthOutside1X128, int56 tickCumulativeOutside, uint160 secondsPerLiquidityOutsideX128, uint32 secondsOutside, bool initialized)',
  'function observe(uint32[] secondsAgos) view returns (int56[] tickCumulatives, uint160[] secondsPerLiquidityCumulativeX128s)',
]);

export const UNISWAP_V3_FACTORY_ABI = parseAbi([
  'function getPool(address tokenA, address tokenB, uint24 fee) view returns (address pool)',
  'function owner() view returns (address)',
  'function feeAmountTickSpacing(uint24 fee) view returns (int24)',
]);

/** Chainlink AggregatorV3Interface. */
export const AGGREGATOR_V3_ABI = parseAbi([
  'function decimals() view returns (uint8)',
  'function description() view returns (string)',
  'function latestRoundData() view returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)',
]);

/**
 * Functions `read_contract_state` finds by name on any contract when no ABI is registered for
 * the address and none is passed: the common standard interfaces.
 */
export const COMMON_ABI = [
  ...ERC20_ABI,
  ...ERC721_ABI,
  ...UNISWAP_V3_POOL_ABI,
  ...UNISWAP_V3_FACTORY_ABI,
  ...AGGREGATOR_V3_ABI.filter((f) => f.name !== 'decimals'),
];
