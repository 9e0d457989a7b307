package exchange

import (
	"context"
	"iter"
	"time"
)

// This file holds the position history, GET /api/v2/mix/position/history-position
// (the venue's docs, contract/position "Get Historical Position": 20 requests a
// second per uid, only the last three months, at most 100 rows a page, pages
// walked back with idLessThan = the answer's endId). It is where closed
// trades and their realised P&L, fees and funding come from: the venue's own
// record, so an engine restarted mid-day reads the same figures.

// Limits of history-position (the venue's docs, above).
const (
	// MaxPositionHistoryLimit is the largest limit of one history-position call.
	MaxPositionHistoryLimit = 100
	// PositionHistoryMaxSpan is the widest startTime..endTime window (and
	// the oldest record the venue keeps): three months, read as 90 days.
	PositionHistoryMaxSpan = 90 * 24 * time.Hour
)

// PositionHistoryRequest is the query of history-position. Every field is
// optional: without a symbol the venue answers for ProductType (default
// USDT-FUTURES); with one, ProductType "will not take effect" (the docs).
// The times bound the positions' update time (uTime), at most 90 days apart.
type PositionHistoryRequest struct {
	Symbol      string      `json:"symbol,omitempty"`
	ProductType ProductType `json:"productType,omitempty"`
	IDLessThan  string      `json:"idLessThan,omitempty"`
	StartTime   Millis      `json:"startTime,omitempty"`
	EndTime     Millis      `json:"endTime,omitempty"`
	Limit       int         `json:"limit,omitempty"`
}

// HistoryPosition is one closed position. Pnl is the realised P&L before
// fees and funding; NetProfit is what the position made after them
// (the docs' example: pnl 14.1, netProfit 12.1). OpenFee, CloseFee and
// TotalFunding carry the venue's sign: a fee paid is negative in the
// websocket push of the same record and in the bills, positive in the docs'
// REST example, so readers take NetProfit rather than summing the parts.
// CTime is when the position was opened, UTime when it was closed.
type HistoryPosition struct {
	PositionID    string     `json:"positionId"`
	MarginCoin    string     `json:"marginCoin"`
	Symbol        string     `json:"symbol"`
	HoldSide      HoldSide   `json:"holdSide"`
	OpenAvgPrice  Num        `json:"openAvgPrice"`
	CloseAvgPrice Num        `json:"closeAvgPrice"`
	MarginMode    MarginMode `json:"marginMode"`
	OpenTotalPos  Num        `json:"openTotalPos"`
	CloseTotalPos Num        `json:"closeTotalPos"`
	Pnl           Num        `json:"pnl"`
	NetProfit     Num        `json:"netProfit"`
	TotalFunding  Num        `json:"totalFunding"`
	OpenFee       Num        `json:"openFee"`
	CloseFee      Num        `json:"closeFee"`
	CTime         Millis     `json:"cTime"`
	UTime         Millis     `json:"uTime"`
}

// PositionHistoryPage is one page of history-position, newest first; EndID
// is the idLessThan of the next (older) page.
type PositionHistoryPage struct {
	List  []HistoryPosition `json:"list"`
	EndID string            `json:"endId"`
}

// Validate checks the history-position rules (the venue's docs): a known
// product type when one is given, an upper-case symbol, times at most 90
// days apart, limit at most 100.
func (r PositionHistoryRequest) Validate(now time.Time) error {
	p := problems{op: OpHistoryPosition}
	if r.ProductType != "" {
		p.productType(r.ProductType)
	}
	p.upper("symbol", r.Symbol)
	p.span(r.StartTime, r.EndTime, false, PositionHistoryMaxSpan)
	p.limit(r.Limit, MaxPositionHistoryLimit)
	return p.err()
}

// PositionHistory returns one page of closed positions, newest first.
func (c *Client) PositionHistory(ctx context.Context, req PositionHistoryRequest) (PositionHistoryPage, error) {
	return do[PositionHistoryPage](ctx, c, OpHistoryPosition, &req)
}

// PositionHistoryReader is what IterPositionHistory needs.
type PositionHistoryReader interface {
	PositionHistory(ctx context.Context, req PositionHistoryRequest) (PositionHistoryPage, error)
}

// IterPositionHistory yields every closed position of req, newest first,
// following endId; a page shorter than the limit (the venue's default 20
// when req.Limit is 0) is the last.
func IterPositionHistory(ctx context.Context, r PositionHistoryReader, req PositionHistoryRequest) iter.Seq2[HistoryPosition, error] {
	limit := req.Limit
	if limit <= 0 {
		limit = defaultPositionHistoryLimit
	}
	return paginate(ctx, OpHistoryPosition, req.IDLessThan, func(ctx context.Context, cursor string) (page[HistoryPosition], error) {
		q := req
		q.IDLessThan = cursor
		p, err := r.PositionHistory(ctx, q)
		pg := endIDPage(p.List, p.EndID)
		pg.last = pg.last || len(p.List) < limit
		return pg, err
	})
}

// defaultPositionHistoryLimit is the venue's page size when limit is not sent.
const defaultPositionHistoryLimit = 20
