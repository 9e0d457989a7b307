// The page script of report.html: it only draws. Every figure comes from
// the #report-data element, which the Go side (chartData) wrote.
(function () {
  "use strict";
  // markers counts the markers of the data, drawn the markers drawn after
  // merging nearby ones, labelled those drawn with their text; ticks are
  // the time-axis labels drawn (time, label), for the browser test.
  var status = { library: "", charts: 0, series: 0, markers: 0, fillMarkers: 0, firingMarkers: 0, drawn: 0, labelled: 0, ticks: [], errors: [] };
  var layers = [];
  // finish writes the status; it runs once the charts are made and again
  // after they have drawn (the axis labels and merged markers exist only
  // then).
  function finish() {
    status.drawn = 0;
    status.labelled = 0;
    layers.forEach(function (l) { status.drawn += l.drawn; status.labelled += l.labelled; });
    var shown = Object.assign({}, status, { errors: status.errors.concat(window.reportErrors || []) });
    var el = document.getElementById("chart-status");
    el.textContent = JSON.stringify(shown);
    if (shown.errors.length > 0) {
      el.className = "failed";
      el.textContent = "The charts could not be drawn: " + shown.errors.join("; ") + "\n" + el.textContent;
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
    // Year and month marks are where the library's calendar, which is
    // UTC, starts a year or a month: they are named in UTC, so that the
    // mark of 1 February 00:00 UTC reads "Feb 2027", not "Jan 2027" (its
    // New York evening of 31 January), and the axis reads in order.
    var fYearUTC = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric" });
    var fMonthUTC = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", month: "short", year: "numeric" });
    var fFull = fmt({ weekday: "short", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short" });
    function date(t) { return new Date(t * 1000); }
    // span is the visible time of the chart being labelled, in seconds.
    function label(t, type, span) {
      switch (type) {
        case LC.TickMarkType.Year: return fYearUTC.format(date(t));
        case LC.TickMarkType.Month: return fMonthUTC.format(date(t));
        // The library puts day marks at UTC midnight, which is evening in
        // New York: zoomed in, say the hour too, so the mark is not read
        // as midnight; over more than ten days the New York date is enough
        // (it never runs ahead of a UTC month's mark).
        case LC.TickMarkType.DayOfMonth: return fDay.format(date(t)) + (span > 10 * 86400 ? "" : " " + fTime.format(date(t)));
        case LC.TickMarkType.TimeWithSeconds: return fSec.format(date(t));
        default: return fTime.format(date(t));
      }
    }
    var seenTicks = {};
    function tick(t, type, span) {
      var text = label(t, type, span);
      if (status.ticks.length < 2000 && !seenTicks[t + text]) {
        seenTicks[t + text] = true;
        status.ticks.push([t, text]);
      }
      return text;
    }
    function newChart(el) {
      status.charts++;
      var chart;
      function axisLabel(t, type) {
        var r = chart ? chart.timeScale().getVisibleRange() : null;
        return tick(t, type, r ? r.to - r.from : 0);
      }
      chart = LC.createChart(el, {
        autoSize: true,
        layout: { background: { color: "#ffffff" }, textColor: "#333", attributionLogo: true },
        grid: { vertLines: { color: "#f0f0f0" }, horzLines: { color: "#f0f0f0" } },
        crosshair: { mode: LC.CrosshairMode.Normal },
        timeScale: { timeVisible: true, secondsVisible: false, tickMarkFormatter: axisLabel, borderColor: "#ccc" },
        rightPriceScale: { borderColor: "#ccc" },
        localization: { timeFormatter: function (t) { return fFull.format(date(t)); } }
      });
      return chart;
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
      status.markers += s.markers.length;
      s.markers.forEach(function (k) { if (k.kind === "fill") status.fillMarkers++; else status.firingMarkers++; });
      var layer = markerLayer(chart, line, s, document.getElementById("marker-info-" + i));
      // Room on both sides, so that the label of a marker on the first or
      // last sample is not cut off.
      var n = s.prices.length, pad = Math.max(3, Math.round(n * 0.06));
      chart.timeScale().setVisibleLogicalRange({ from: -pad, to: n - 1 + pad });
      layer.redraw();
      layers.push(layer);
    });

    // markerLayer draws the markers of one price chart so that they stay
    // readable at any zoom: markers closer than about 24 px are merged
    // into one circle showing their count, coloured as its markers when
    // they agree; a marker's own text (rule and side) is drawn only while
    // the visible markers have room for it (about 90 px each). Hovering
    // lists what the markers under the cursor stand for in info.
    function markerLayer(chart, line, s, info) {
      var times = s.prices.map(function (p) { return p.time; });
      function barIndex(t) {
        var lo = 0, hi = times.length - 1, at = 0;
        while (lo <= hi) {
          var mid = (lo + hi) >> 1;
          if (times[mid] <= t) { at = mid; lo = mid + 1; } else { hi = mid - 1; }
        }
        return at;
      }
      var all = s.markers.map(function (k) { return { k: k, i: barIndex(k.time) }; });
      var api = LC.createSeriesMarkers(line, []);
      var layer = { drawn: 0, labelled: 0, groups: [], bucket: 1, redraw: redraw };
      var idle = info ? info.textContent : "";
      function redraw() {
        var ts = chart.timeScale();
        var range = ts.getVisibleLogicalRange() || { from: 0, to: times.length - 1 };
        var width = Math.max(ts.width(), 1);
        var bucket = Math.max(1, Math.ceil((range.to - range.from) / width * 24));
        var groups = [];
        all.forEach(function (m) {
          var key = Math.floor(m.i / bucket), g = groups[groups.length - 1];
          if (g && g.key === key) g.members.push(m.k); else groups.push({ key: key, members: [m.k] });
        });
        var inView = groups.filter(function (g) { return g.key * bucket <= range.to && (g.key + 1) * bucket > range.from; }).length;
        var withText = inView <= width / 90;
        var out = [], labelled = 0;
        groups.forEach(function (g) {
          var k = g.members[0];
          if (g.members.length === 1) {
            var one = { time: k.time, position: k.position, shape: k.shape, color: k.color, text: withText ? k.text : "" };
            if (k.price !== undefined) one.price = k.price;
            if (withText) labelled++;
            out.push(one);
            return;
          }
          var colour = k.color;
          g.members.forEach(function (o) { if (o.color !== colour) colour = "#555555"; });
          out.push({ time: k.time, position: "aboveBar", shape: "circle", color: colour, text: String(g.members.length) });
        });
        api.setMarkers(out);
        layer.groups = groups; layer.bucket = bucket; layer.drawn = out.length; layer.labelled = labelled;
      }
      chart.timeScale().subscribeVisibleLogicalRangeChange(function () { redraw(); });
      if (info) {
        chart.subscribeCrosshairMove(function (param) {
          if (param.time === undefined) { info.textContent = idle; return; }
          var key = Math.floor(barIndex(param.time) / layer.bucket);
          var g = layer.groups.filter(function (x) { return x.key === key; })[0];
          if (!g) { info.textContent = idle; return; }
          var lines = g.members.slice(0, 12).map(function (o) { return fFull.format(date(o.time)) + ": " + o.text; });
          if (g.members.length > 12) lines.push("and " + (g.members.length - 12) + " more");
          info.textContent = lines.join(" \u2022 ");
        });
      }
      return layer;
    }

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
  setTimeout(finish, 1000);
})();
