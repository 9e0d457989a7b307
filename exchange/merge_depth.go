package exchange

import (
	"context"
	"slices"
	"strings"
	"time"
)

// MergeDepthRequest is the query of GET /api/v2/mix/market/merge-depth, the
// order book of one futures contract (the venue's "Get Merge Market Depth").
// Precision is scale0 (levels not merged, the venue's default) to scale3;
// Limit is one of 1, 5, 15, 50 or max, the venue's default being 100 levels.
type MergeDepthRequest struct {
	Symbol      string      `json:"symbol"`
	ProductType ProductType `json:"productType"`
	Precision   string      `json:"precision,omitempty"`
	Limit       string      `json:"limit,omitempty"`
}

// MergeDepth is the order book of one futures contract: asks ascending and
// bids descending by price, each level [price, size]. The venue's docs show
// the levels as bare JSON numbers (the spot endpoint's as strings); Num takes
// both. Scale is the price step the levels were merged to.
type MergeDepth struct {
	Asks           []PriceLevel `json:"asks"`
	Bids           []PriceLevel `json:"bids"`
	TS             Millis       `json:"ts"`
	Scale          Num          `json:"scale"`
	Precision      string       `json:"precision"`
	IsMaxPrecision string       `json:"isMaxPrecision"`
}

// mergeDepthLimits are the limits the venue's docs list.
var mergeDepthLimits = []string{"1", "5", "15", "50", "max"}

// mergeDepthPrecisions are the precisions the venue's docs list.
var mergeDepthPrecisions = []string{"scale0", "scale1", "scale2", "scale3"}

// Validate checks the merge-depth rules (the venue's docs): symbol and
// productType are required; precision and limit, when given, are one of
// their documented values.
func (r MergeDepthRequest) Validate(now time.Time) error {
	p := problems{op: OpMergeDepth}
	p.required("symbol", r.Symbol)
	p.productType(r.ProductType)
	p.oneOfText("precision", r.Precision, mergeDepthPrecisions)
	p.oneOfText("limit", r.Limit, mergeDepthLimits)
	return p.err()
}

// MergeDepth returns the order book of one futures contract.
func (c *Client) MergeDepth(ctx context.Context, req MergeDepthRequest) (MergeDepth, error) {
	return do[MergeDepth](ctx, c, OpMergeDepth, &req)
}

// oneOfText checks an optional text field against its documented values.
func (p *problems) oneOfText(field, v string, allowed []string) {
	if v != "" && !slices.Contains(allowed, v) {
		p.add(field, CodeParamVerify, "must be one of %s (got %q)", strings.Join(allowed, ", "), v)
	}
}
