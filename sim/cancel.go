package sim

import (
	"context"
	"fmt"

	"github.com/tickrules/tickrules/exchange"
)

// find returns a's order named by orderId (which wins) or clientOid.
func (a *Account) find(orderID, clientOID string) (*order, bool) {
	if orderID != "" {
		o, ok := a.byID[orderID]
		return o, ok
	}
	o, ok := a.byCOID[clientOID]
	return o, ok && o != nil // nil: reserved by a modify, not visible yet
}

// pendingOrder finds a pending order of c for a cancel, answering 22001 when
// there is none.
func (a *Account) pendingOrder(op exchange.Op, c *contract, ref exchange.OrderRef) (*order, error) {
	o, ok := a.find(ref.OrderID, ref.ClientOID)
	if !ok || o.c != c {
		return nil, apiErr(op, exchange.CodeNoOrderCancel, "No order to cancel")
	}
	if !o.pending() {
		return nil, apiErr(op, exchange.CodeNoOrderCancel, fmt.Sprintf("No order to cancel: order %s is %s", o.id, o.state))
	}
	return o, nil
}

// CancelOrder cancels one pending order (POST cancel-order). Cancels work on
// stock futures while their market is closed.
func (a *Account) CancelOrder(ctx context.Context, req exchange.CancelOrderRequest) (exchange.OrderAck, error) {
	a.x.lockWrite()
	defer a.x.mu.Unlock()
	op := exchange.OpCancelOrder
	if err := validate(op, req, a.x.now); err != nil {
		return exchange.OrderAck{}, err
	}
	c, err := a.x.contract(op, req.ProductType, req.Symbol)
	if err != nil {
		return exchange.OrderAck{}, err
	}
	if err := a.checkMarginCoin(op, c, req.MarginCoin); err != nil {
		return exchange.OrderAck{}, err
	}
	o, err := a.pendingOrder(op, c, exchange.OrderRef{OrderID: req.OrderID, ClientOID: req.ClientOID})
	if err != nil {
		return exchange.OrderAck{}, err
	}
	a.cancel(o, exchange.NormalCancel)
	return exchange.OrderAck{OrderID: o.id, ClientOID: o.clientOID}, nil
}

// BatchCancelOrders cancels the listed orders, or every pending order of the
// symbol (or of the product type) when no list is sent. Missing orders are
// failure items with code 22001.
func (a *Account) BatchCancelOrders(ctx context.Context, req exchange.BatchCancelOrdersRequest) (exchange.BatchResult, error) {
	a.x.lockWrite()
	defer a.x.mu.Unlock()
	op := exchange.OpBatchCancelOrders
	if err := validate(op, req, a.x.now); err != nil {
		return exchange.BatchResult{}, err
	}
	res := exchange.BatchResult{SuccessList: []exchange.OrderAck{}, FailureList: []exchange.BatchFailure{}}
	var c *contract
	if req.Symbol != "" {
		var err error
		if c, err = a.x.contract(op, req.ProductType, req.Symbol); err != nil {
			return exchange.BatchResult{}, err
		}
	}
	if len(req.OrderIDList) > 0 {
		for _, ref := range req.OrderIDList {
			o, err := a.pendingOrder(op, c, ref)
			if err != nil {
				res.FailureList = append(res.FailureList, failure(err, exchange.OrderAck(ref), ""))
				continue
			}
			a.cancel(o, exchange.NormalCancel)
			res.SuccessList = append(res.SuccessList, exchange.OrderAck{OrderID: o.id, ClientOID: o.clientOID})
		}
		return res, nil
	}
	res.SuccessList = a.cancelWhere(func(o *order) bool {
		return o.c.productType == req.ProductType && (c == nil || o.c == c) && (req.MarginCoin == "" || o.c.marginCoin == req.MarginCoin)
	})
	return res, nil
}

// CancelAllOrders cancels every pending order of the product type (and
// margin coin, when sent).
func (a *Account) CancelAllOrders(ctx context.Context, req exchange.CancelAllOrdersRequest) (exchange.BatchResult, error) {
	a.x.lockWrite()
	defer a.x.mu.Unlock()
	op := exchange.OpCancelAllOrders
	if err := validate(op, req, a.x.now); err != nil {
		return exchange.BatchResult{}, err
	}
	// With both sent, the request is good only within receiveWindow after
	// requestTime, the usual meaning of the pair.
	if req.RequestTime != "" && req.ReceiveWindow != "" {
		if late := a.x.now.UnixMilli() - req.RequestTime.Int(); late > req.ReceiveWindow.Int() {
			return exchange.BatchResult{}, apiErr(op, exchange.CodeTimestampExpired, fmt.Sprintf("request expired: %d ms after requestTime, receiveWindow %s ms", late, req.ReceiveWindow))
		}
	}
	acks := a.cancelWhere(func(o *order) bool {
		return o.c.productType == req.ProductType && (req.MarginCoin == "" || o.c.marginCoin == req.MarginCoin)
	})
	return exchange.BatchResult{SuccessList: acks, FailureList: []exchange.BatchFailure{}}, nil
}

// cancelWhere cancels the pending orders that match, in creation order.
func (a *Account) cancelWhere(match func(*order) bool) []exchange.OrderAck {
	acks := []exchange.OrderAck{}
	for _, o := range append([]*order(nil), a.livePending()...) {
		if match(o) {
			a.cancel(o, exchange.NormalCancel)
			acks = append(acks, exchange.OrderAck{OrderID: o.id, ClientOID: o.clientOID})
		}
	}
	return acks
}
