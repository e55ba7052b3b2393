/**
 * Solidity for the devnet's own contracts (tokens, V3 mint/swap helper, a Chainlink-style feed,
 * proxies and a probe contract for read_contract_state). Kept as a string so the built app
 * carries it without a copy step; compiled with solcjs (`evmVersion: paris`) and cached by hash.
 */
export const DEVNET_CONTRACTS_SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

abstract contract DevERC20Base {
    uint8 public immutable decimals;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    constructor(uint8 d) { decimals = d; }

    function mint(address to, uint256 v) external {
        totalSupply += v;
        balanceOf[to] += v;
        emit Transfer(address(0), to, v);
    }
    function transfer(address to, uint256 v) external returns (bool) { _move(msg.sender, to, v); return true; }
    function approve(address sp, uint256 v) external returns (bool) {
        allowance[msg.sender][sp] = v;
        emit Approval(msg.sender, sp, v);
        return true;
    }
    function transferFrom(address f, address to, uint256 v) external returns (bool) {
        uint256 a = allowance[f][msg.sender];
        if (a != type(uint256).max) {
            require(a >= v, "DevToken: allowance");
            allowance[f][msg.sender] = a - v;
        }
        _move(f, to, v);
        return true;
    }
    function _move(address f, address to, uint256 v) internal {
        require(balanceOf[f] >= v, "DevToken: balance");
        balanceOf[f] -= v;
        balanceOf[to] += v;
        emit Transfer(f, to, v);
    }
}

contract DevToken is DevERC20Base {
    string public name;
    string public symbol;
    constructor(string memory n, string memory s, uint8 d) DevERC20Base(d) { name = n; symbol = s; }
}

/** Like early MKR: name and symbol are bytes32, not string. */
contract DevBytes32Token is DevERC20Base {
    bytes32 public name;
    bytes32 public symbol;
    constructor(bytes32 n, bytes32 s) DevERC20Base(18) { name = n; symbol = s; }
}

interface IDevV3Pool {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function mint(address recipient, int24 tickLower, int24 tickUpper, uint128 amount, bytes calldata data) external returns (uint256, uint256);
    function swap(address recipient, bool zeroForOne, int256 amountSpecified, uint160 sqrtPriceLimitX96, bytes calldata data) external returns (int256, int256);
}

interface IDevERC20 {
    function transferFrom(address f, address to, uint256 v) external returns (bool);
}

/** Pays the V3 mint and swap callbacks from the caller's allowance. */
contract DevPoolHelper {
    function mint(address pool, int24 lo, int24 hi, uint128 liquidity) external {
        IDevV3Pool(pool).mint(msg.sender, lo, hi, liquidity, abi.encode(msg.sender));
    }
    function swap(address pool, bool zeroForOne, int256 amountSpecified, uint160 limit) external {
        IDevV3Pool(pool).swap(msg.sender, zeroForOne, amountSpecified, limit, abi.encode(msg.sender));
    }
    function uniswapV3MintCallback(uint256 a0, uint256 a1, bytes calldata data) external {
        address payer = abi.decode(data, (address));
        if (a0 > 0) IDevERC20(IDevV3Pool(msg.sender).token0()).transferFrom(payer, msg.sender, a0);
        if (a1 > 0) IDevERC20(IDevV3Pool(msg.sender).token1()).transferFrom(payer, msg.sender, a1);
    }
    function uniswapV3SwapCallback(int256 d0, int256 d1, bytes calldata data) external {
        address payer = abi.decode(data, (address));
        if (d0 > 0) IDevERC20(IDevV3Pool(msg.sender).token0()).transferFrom(payer, msg.sender, uint256(d0));
        if (d1 > 0) IDevERC20(IDevV3Pool(msg.sender).token1()).transferFrom(payer, msg.sender, uint256(d1));
    }
}

/** Chainlink AggregatorV3-style feed with a settable answer. */
contract DevAggregator {
    uint8 public immutable decimals;
    string public description;
    int256 private answer;
    uint256 private updated;
    uint80 private round;
    constructor(uint8 d, string memory desc, int256 a) { decimals = d; description = desc; answer = a; updated = block.timestamp; round = 1; }
    function setAnswer(int256 a) external { answer = a; updated = block.timestamp; round += 1; }
    function latestRoundData() external view returns (uint80 roundId, int256 answer_, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound) {
        return (round, answer, updated, updated, round);
    }
}

/** Minimal ERC-721 (enough for interface detection and name()). */
contract DevNFT {
    string public name;
    string public symbol;
    mapping(uint256 => address) public ownerOf;
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    constructor(string memory n, string memory s) { name = n; symbol = s; }
    function mint(address to, uint256 id) external {
        require(ownerOf[id] == address(0), "DevNFT: minted");
        ownerOf[id] = to;
        balanceOf[to] += 1;
        emit Transfer(address(0), to, id);
    }
    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x80ac58cd || id == 0x01ffc9a7 || id == 0x5b5e139f;
    }
}

/** Reverts, overloads, tuples and a write function, for read_contract_state tests. */
contract DevProbe {
    struct Info { uint256 amount; address who; bool ok; }
    error Unauthorized(address caller, uint256 code);
    uint256 public counter;
    event Bumped(uint256 value);
    function name() external pure returns (string memory) { return "DevProbe"; }
    function boom() external pure returns (uint256) { revert("DevProbe: boom"); }
    function denied() external view returns (uint256) { revert Unauthorized(msg.sender, 7); }
    function divide(uint256 a, uint256 b) external pure returns (uint256) { return a / b; }
    function echo(uint256 a) external pure returns (uint256) { return a * 2; }
    function echo(address a) external pure returns (address) { return a; }
    function info() external pure returns (Info memory) { return Info(12345678901234567890123, address(0xBEEF), true); }
    function pair() external pure returns (uint256 amount, int256 delta, bytes32 tag) { return (1, -5, bytes32("hello")); }
    function sum(uint256[] calldata xs, int8 offset) external pure returns (int256 total) {
        int256 t = offset;
        for (uint256 i = 0; i < xs.length; i++) t += int256(xs[i]);
        return t;
    }
    function bump() external returns (uint256) { counter += 1; emit Bumped(counter); return counter; }
    /** Caller-sensitive: inside Multicall3 this is Multicall3's address, in a plain eth_call the caller's. */
    function whoami() external view returns (address) { return msg.sender; }
}

/** An UpgradeableBeacon-style beacon: implementation() is what its beacon proxies run. */
contract DevBeacon {
    address public implementation;
    constructor(address impl) { implementation = impl; }
}

/** EIP-1967 beacon proxy: the beacon in the standard beacon slot, calls delegated to beacon.implementation(). */
contract DevBeaconProxy {
    bytes32 private constant BEACON = 0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50;
    constructor(address beacon) { assembly { sstore(BEACON, beacon) } }
    fallback() external payable {
        address impl = DevBeacon(_beacon()).implementation();
        assembly {
            calldatacopy(0, 0, calldatasize())
            let r := delegatecall(gas(), impl, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch r case 0 { revert(0, returndatasize()) } default { return(0, returndatasize()) }
        }
    }
    function _beacon() private view returns (address b) { assembly { b := sload(BEACON) } }
}

/** EIP-1967 proxy: implementation in the standard slot, everything delegated. */
contract DevProxy1967 {
    bytes32 private constant IMPL = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    constructor(address impl) { assembly { sstore(IMPL, impl) } }
    fallback() external payable {
        assembly {
            let impl := sload(IMPL)
            calldatacopy(0, 0, calldatasize())
            let r := delegatecall(gas(), impl, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch r case 0 { revert(0, returndatasize()) } default { return(0, returndatasize()) }
        }
    }
}
`;
