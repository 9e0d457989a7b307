// candles.js asks a venue at the base URL given as the first argument for
// candles and funding history through the public client library (bitget-api,
// pinned in package.json), without a key, as its users download history, and
// prints one JSON object per query on stdout; a refusal by the venue makes
// the library throw, which ends the script with exit code 1.
'use strict';

const { RestClientV2 } = require('bitget-api');

const baseUrl = process.argv[2];
if (!baseUrl) {
  console.error('usage: node candles.js BASE_URL');
  process.exit(2);
}
const v2 = new RestClientV2({ baseUrl });
const q = { symbol: 'BTCUSDT', productType: 'USDT-FUTURES', granularity: '1m', limit: '200' };

function step(name, res) {
  console.log(JSON.stringify({ step: name, code: res.code, data: res.data }));
}

async function main() {
  step('candles', await v2.getFuturesCandles({ ...q, kLineType: 'MARK' }));
  step('history-candles', await v2.getFuturesHistoricCandles(q));
  step('history-mark-candles', await v2.getFuturesHistoricMarkPriceCandles(q));
  step('history-index-candles', await v2.getFuturesHistoricIndexPriceCandles(q));
  step('history-fund-rate', await v2.getFuturesHistoricFundingRates({ symbol: 'BTCUSDT', productType: 'USDT-FUTURES', pageSize: '100' }));
}

main().catch((e) => {
  console.error(JSON.stringify(e && e.body ? e.body : String(e)));
  process.exit(1);
});
