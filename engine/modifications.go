package engine

import (
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/tickrules/tickrules/actions"
	"github.com/tickrules/tickrules/exchange"
	"github.com/tickrules/tickrules/marketdata"
)

// Modification is how often the engine moved the order of one client
// order id (an order's .modifications), and when last.
type Modification struct {
	Count int       `json:"count"`
	At    time.Time `json:"at"`
}

// modifications follow the orders the engine moved: a modify_order that
// went through gives the order a new client order id, which inherits the
// count of the old one plus one. Firings settled off the tick loop record
// here too, hence the lock.
type modifications struct {
	mu    sync.Mutex
	byOID map[string]Modification
	dirty bool
}

// modificationsKept is how long a count is kept after the last move: an
// order still pending after a week without a move is rare, and the file
// stays small.
const modificationsKept = 7 * 24 * time.Hour

// record counts the modify_order requests of f that went through.
func (m *modifications) record(f *Firing) {
	for _, l := range f.Legs {
		req, ok := l.Request.(exchange.ModifyOrderRequest)
		if l.Op != exchange.OpModifyOrder || l.Outcome != actions.OK || !ok || req.NewClientOID == "" {
			continue
		}
		old := req.ClientOID
		if old == "" && f.State != nil { // the rule named the order by its id
			if orders, err := f.State.Orders(req.Symbol); err == nil {
				for _, o := range orders {
					if o.ID == req.OrderID {
						old = o.ClientOID
					}
				}
			}
		}
		m.mu.Lock()
		m.byOID[req.NewClientOID] = Modification{Count: m.byOID[old].Count + 1, At: f.At}
		m.dirty = true
		m.mu.Unlock()
	}
}

// observe writes the counts into st's pending orders.
func (m *modifications) observe(st *marketdata.State) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.byOID) == 0 {
		return
	}
	for _, o := range st.AllOrders() {
		o.Modifications = m.byOID[o.ClientOID].Count
	}
}

// modificationsFile is the file name of the counts in the state directory.
const modificationsFile = "order-modifications.json"

type modificationsFileForm struct {
	Version int                     `json:"version"`
	Orders  map[string]Modification `json:"orders"`
}

// LoadModifications reads the saved counts; a missing file is none.
func (s *Store) LoadModifications() (map[string]Modification, error) {
	return loadFile(s, modificationsFile, DecodeModifications, map[string]Modification{}, "fix it, or move it away: the orders' modifications then count from 0")
}

// DecodeModifications parses a modifications file.
func DecodeModifications(b []byte) (map[string]Modification, error) {
	var f modificationsFileForm
	if err := strictJSON(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadStateFile, err)
	}
	if f.Version != 1 || f.Orders == nil {
		return nil, fmt.Errorf(`%w: not a version 1 modifications file with "orders"`, ErrBadStateFile)
	}
	for oid, m := range f.Orders {
		if m.Count < 1 {
			return nil, fmt.Errorf("%w: order %q: count %d is below 1", ErrBadStateFile, oid, m.Count)
		}
	}
	return f.Orders, nil
}

// saveModifications saves the counts when they changed, dropping those not
// moved for modificationsKept. A failed save is tried again next tick.
func (e *Engine) saveModifications(now time.Time) {
	m := &e.modifications
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirty || e.opts.Store == nil {
		return
	}
	for oid, c := range m.byOID {
		if now.Sub(c.At) > modificationsKept {
			delete(m.byOID, oid)
		}
	}
	if err := e.opts.Store.saveFile(modificationsFile, modificationsFileForm{Version: 1, Orders: m.byOID}); err != nil {
		e.opts.Logger.Warn("could not save how often orders were modified; trying again next tick", zap.Error(err))
		return
	}
	m.dirty = false
}
