// drive.js runs an independent public client library of the exchange
// (bitget-api, pinned in package.json) against a venue at the base URL given
// as the first argument, with the demo scenario's one-way key. It places,
// looks up, lists, cancels, trades, and reads positions and fills, and
// prints one JSON object per step on stdout; any refusal by the venue makes
// the library throw, which ends the script with exit code 1.
'use strict';

const { RestClientV2, RestClientV3 } = require('bitget-api');

const baseUrl = process.argv[2];
if (!baseUrl) {
  console.error('usage: node drive.js BASE_URL');
  process.exit(2);
}
const keys = { apiKey: 'demo-key', apiSecret: 'demo-secret', apiPass: 'demo-passphrase', baseUrl };
const v2 = new RestClientV2(keys);
const v3 = new RestClientV3(keys);
const product = { symbol: 'BTCUSDT', productType: 'USDT-FUTURES', marginCoin: 'USDT' };
// Far below any BTC price of the demo scenario: the limit orders rest.
const restingPrice = '1000';

function step(name, res) {
  console.log(JSON.stringify({ step: name, code: res.code, data: res.data }));
  return res.data;
}

async function main() {
  step('time', await v2.getServerTime());
  step('contracts', await v2.getFuturesContractConfig({ productType: 'USDT-FUTURES', symbol: 'BTCUSDT' }));
  step('account', await v2.getFuturesAccountAsset(product));
  step('accounts', await v2.getFuturesAccountAssets({ productType: 'USDT-FUTURES' }));
  // The future's own market: its ticker and its book (merge-depth).
  step('ticker', await v2.getFuturesTicker({ productType: 'USDT-FUTURES', symbol: 'BTCUSDT' }));
  step('merge-depth', await v2.getFuturesMergeDepth({ productType: 'USDT-FUTURES', symbol: 'BTCUSDT', limit: '5' }));

  // A resting limit order under a clientOid with the characters the
  // venue's own ids carry ('#', '+').
  const clientOid = 'BITGET#pc+1';
  step('place', await v2.futuresSubmitOrder({ ...product, marginMode: 'crossed', size: '0.01', price: restingPrice,
    side: 'buy', orderType: 'limit', force: 'gtc', clientOid }));
  step('detail', await v2.getFuturesOrder({ symbol: 'BTCUSDT', productType: 'USDT-FUTURES', clientOid }));
  step('pending', await v2.getFuturesOpenOrders({ productType: 'USDT-FUTURES', symbol: 'BTCUSDT' }));
  step('cancel', await v2.futuresCancelOrder({ symbol: 'BTCUSDT', productType: 'USDT-FUTURES', marginCoin: 'USDT', clientOid }));

  // force in upper case, as other public clients send it.
  step('place-upper-force', await v2.futuresSubmitOrder({ ...product, marginMode: 'crossed', size: '0.01', price: restingPrice,
    side: 'buy', orderType: 'limit', force: 'GTC', clientOid: 'pc-upper-1' }));
  step('cancel-upper-force', await v2.futuresCancelOrder({ symbol: 'BTCUSDT', productType: 'USDT-FUTURES', clientOid: 'pc-upper-1' }));

  // A market order opens a position that fills at once.
  step('market', await v2.futuresSubmitOrder({ ...product, marginMode: 'crossed', size: '0.01',
    side: 'buy', orderType: 'market', clientOid: 'pc-market-1' }));
  step('positions', await v2.getFuturesPositions({ productType: 'USDT-FUTURES', marginCoin: 'USDT' }));
  step('fills', await v2.getFuturesFills({ productType: 'USDT-FUTURES', symbol: 'BTCUSDT' }));

  // The unified-account and stock-pair reads under the live venue's forms.
  step('strategy-orders', await v3.getUnfilledStrategyOrders({ category: 'USDT-FUTURES' }));
  step('reality-orderbook', await v3.getRealityOrderBook({ symbol: 'TSLAUSDT' }));
  step('reality-fills', await v3.getRealityFills({ symbol: 'TSLAUSDT' }));
}

main().catch((err) => {
  console.error(JSON.stringify(err && err.body ? err.body : String(err)));
  process.exit(1);
});
