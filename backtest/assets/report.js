// The page script of report.html: it only draws. Every figure comes from
// the #report-data element, which the Go side (chartData) wrote.
(function () {
  "use strict";
  var status = { library: "", charts: 0, series: 0, markers: 0, fillMarkers: 0, firingMarkers: 0, errors: [] };
  function finish() {
    status.errors = status.errors.concat(window.reportErrors || []);
    var el = document.getElementById("chart-status");
    el.textContent = JSON.stringify(status);
    if (status.errors.length > 0) {
      el.className = "failed";
      el.textContent = "The charts could not be drawn: " + status.errors.join("; ") + "\n" + el.textContent;
    }
  }
  try {
    var LC = window.LightweightCharts;
    if (!LC) throw new Error("the chart library did not load");
    status.library = LC.version();
    var data = JSON.parse(document.getElementById("report-data").textContent);

    // Times are UTC seconds; the axis and the crosshair show New York time.
    function fmt(opts) {
      return new Intl.DateTimeFormat("en-US", Object.assign({ timeZone: "America/New_York", hourCycle: "h23" }, opts));
    }
    var fTime = fmt({ hour: "2-digit", minute: "2-digit" });
    var fSec = fmt({ hour: "2-digit", minute: "2-digit", second: "2-digit" });
    var fDay = fmt({ month: "short", day: "numeric" });
    var fMonth = fmt({ month: "short", year: "numeric" });
    var fYear = fmt({ year: "numeric" });
    var fFull = fmt({ weekday: "short", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" });
    function date(t) { return new Date(t * 1000); }
    function tick(t, type) {
      switch (type) {
        case LC.TickMarkType.Year: return fYear.format(date(t));
        case LC.TickMarkType.Month: return fMonth.format(date(t));
        // The library puts day marks at UTC midnight, which is evening in
        // New York: say the hour too, so the mark is not read as midnight.
        case LC.TickMarkType.DayOfMonth: return fDay.format(date(t)) + " " + fTime.format(date(t));
        case LC.TickMarkType.TimeWithSeconds: return fSec.format(date(t));
        default: return fTime.format(date(t));
      }
    }
    function newChart(el) {
      status.charts++;
      return LC.createChart(el, {
        autoSize: true,
        layout: { background: { color: "#ffffff" }, textColor: "#333", attributionLogo: true },
        grid: { vertLines: { color: "#f0f0f0" }, horzLines: { color: "#f0f0f0" } },
        crosshair: { mode: LC.CrosshairMode.Normal },
        timeScale: { timeVisible: true, secondsVisible: false, tickMarkFormatter: tick, borderColor: "#ccc" },
        rightPriceScale: { borderColor: "#ccc" },
        localization: { timeFormatter: function (t) { return fFull.format(date(t)); } }
      });
    }
    function add(chart, type, opts, pane) {
      status.series++;
      return chart.addSeries(type, opts, pane);
    }

    data.symbols.forEach(function (s, i) {
      var chart = newChart(document.getElementById("price-" + i));
      var bands = add(chart, LC.HistogramSeries, { priceScaleId: "sessions", priceLineVisible: false, lastValueVisible: false, base: 0 });
      chart.priceScale("sessions").applyOptions({ visible: false, scaleMargins: { top: 0, bottom: 0 } });
      bands.setData(s.bands);
      var step = Math.pow(10, -s.precision);
      var line = add(chart, LC.LineSeries, {
        color: "#1f5fbf", lineWidth: 2, title: s.symbol,
        priceFormat: { type: "price", precision: s.precision, minMove: step }
      });
      line.setData(s.prices);
      var m = LC.createSeriesMarkers(line, s.markers.map(function (k) {
        var out = { time: k.time, position: k.position, shape: k.shape, color: k.color, text: k.text };
        if (k.price !== undefined) out.price = k.price;
        return out;
      }));
      var drawn = m.markers();
      status.markers += drawn.length;
      s.markers.forEach(function (k) { if (k.kind === "fill") status.fillMarkers++; else status.firingMarkers++; });
      // Room on both sides, so that the label of a marker on the first or
      // last sample is not cut off.
      var n = s.prices.length, pad = Math.max(3, Math.round(n * 0.06));
      chart.timeScale().setVisibleLogicalRange({ from: -pad, to: n - 1 + pad });
    });

    // Percent scales start at no less than +-0.25 %: a move of a few
    // dollars on a large account stays a flat line, not a crash.
    function floor(lo, hi) {
      return function (orig) {
        var r = orig();
        var min = r ? Math.min(r.priceRange.minValue, lo) : lo;
        var max = r ? Math.max(r.priceRange.maxValue, hi) : hi;
        return { priceRange: { minValue: min, maxValue: max } };
      };
    }
    var percent = { type: "custom", minMove: 0.0001, formatter: function (v) { return v.toFixed(4) + " %"; } };
    data.equity.forEach(function (e, i) {
      var chart = newChart(document.getElementById("equity-" + i));
      var ret = add(chart, LC.BaselineSeries, {
        title: "return", baseValue: { type: "price", price: 0 }, priceFormat: percent, autoscaleInfoProvider: floor(-0.25, 0.25),
        topLineColor: "#1d8a3a", topFillColor1: "rgba(29,138,58,0.25)", topFillColor2: "rgba(29,138,58,0.05)",
        bottomLineColor: "#c62828", bottomFillColor1: "rgba(198,40,40,0.05)", bottomFillColor2: "rgba(198,40,40,0.25)"
      }, 0);
      ret.setData(e.return);
      var dd = add(chart, LC.BaselineSeries, {
        title: "drawdown", baseValue: { type: "price", price: 0 }, priceFormat: percent, autoscaleInfoProvider: floor(-0.25, 0),
        topLineColor: "#c62828", bottomLineColor: "#c62828", bottomFillColor1: "rgba(198,40,40,0.05)", bottomFillColor2: "rgba(198,40,40,0.3)"
      }, 1);
      dd.setData(e.drawdown);
      var panes = chart.panes();
      if (panes.length > 1) panes[1].setHeight(90);
      chart.timeScale().fitContent();
    });
  } catch (err) {
    status.errors.push(String(err && err.stack ? err.stack : err));
  }
  finish();
})();
