package assemble

import (
	"context"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/engine"
	"github.com/tickrules/tickrules/exchange"
)

// crashVenue marks engine.CrashLegSent after every order request the venue
// answered, before the answer reaches the dispatcher.
type crashVenue struct {
	actions.Venue
	h *engine.CrashHook
}

func (c crashVenue) PlaceOrder(ctx context.Context, req exchange.PlaceOrderRequest) (exchange.OrderAck, error) {
	a, err := c.Venue.PlaceOrder(ctx, req)
	c.h.At(engine.CrashLegSent)
	return a, err
}

func (c crashVenue) ClickBackhand(ctx context.Context, req exchange.ClickBackhandRequest) (exchange.OrderAck, error) {
	a, err := c.Venue.ClickBackhand(ctx, req)
	c.h.At(engine.CrashLegSent)
	return a, err
}

func (c crashVenue) BatchPlaceOrder(ctx context.Context, req exchange.BatchPlaceOrderRequest) (exchange.BatchPlaceOrderResult, error) {
	a, err := c.Venue.BatchPlaceOrder(ctx, req)
	c.h.At(engine.CrashLegSent)
	return a, err
}

func (c crashVenue) ModifyOrder(ctx context.Context, req exchange.ModifyOrderRequest) (exchange.OrderAck, error) {
	a, err := c.Venue.ModifyOrder(ctx, req)
	c.h.At(engine.CrashLegSent)
	return a, err
}

func (c crashVenue) PlaceTPSLOrder(ctx context.Context, req exchange.PlaceTPSLOrderRequest) (exchange.OrderAck, error) {
	a, err := c.Venue.PlaceTPSLOrder(ctx, req)
	c.h.At(engine.CrashLegSent)
	return a, err
}

func (c crashVenue) PlacePlanOrder(ctx context.Context, req exchange.PlacePlanOrderRequest) (exchange.OrderAck, error) {
	a, err := c.Venue.PlacePlanOrder(ctx, req)
	c.h.At(engine.CrashLegSent)
	return a, err
}
