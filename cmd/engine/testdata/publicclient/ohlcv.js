// ohlcv.js asks a venue at the base URL given as the first argument for
// one-minute candles through ccxt (pinned in package.json), as its users
// fetch them: its bitget exchange, with its URLs pointed at the venue, loads
// the swap markets and calls fetchOHLCV. It prints ccxt's rows, then the
// venue's own answer to the very request ccxt sent, as two JSON lines on
// stdout, so that a test can hold one against the other.
'use strict';

const ccxt = require('ccxt');

const baseUrl = process.argv[2];
if (!baseUrl) {
  console.error('usage: node ohlcv.js BASE_URL');
  process.exit(2);
}
// Swap markets only, as a futures user configures it; no spot currencies.
const ex = new ccxt.bitget({ has: { fetchCurrencies: false }, options: { fetchMarkets: { types: ['swap'] }, defaultType: 'swap' } });
for (const k of Object.keys(ex.urls.api)) ex.urls.api[k] = baseUrl;
let candlesURL;
const send = ex.fetch.bind(ex);
ex.fetch = async (url, method, headers, body) => {
  if (url.includes('/candles')) candlesURL = url;
  return send(url, method, headers, body);
};

async function main() {
  await ex.loadMarkets();
  // Five finished minutes from twenty minutes ago: history, the same on
  // every request.
  const since = Math.floor(Date.now() / 60000) * 60000 - 20 * 60000;
  const rows = await ex.fetchOHLCV('BTC/USDT:USDT', '1m', since, 5);
  console.log(JSON.stringify({ step: 'ccxt', url: candlesURL, rows }));
  const res = await fetch(candlesURL);
  console.log(JSON.stringify({ step: 'venue', answer: await res.json() }));
}

main().catch((e) => {
  console.error(String(e));
  process.exit(1);
});
