package exchange

import (
	"encoding/json"
	"time"
)

// Envelope is the response wrapper of every operation. Code is 00000 on
// success. RequestTime is usually a JSON number but has been seen as a string;
// Millis accepts both. The simulator encodes with it, the client decodes with it.
type Envelope struct {
	Code        string          `json:"code"`
	Msg         string          `json:"msg"`
	RequestTime Millis          `json:"requestTime"`
	Data        json.RawMessage `json:"data"`
}

// MarshalJSON writes requestTime as a number, as the exchange usually does.
func (e Envelope) MarshalJSON() ([]byte, error) {
	data := e.Data
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	return json.Marshal(struct {
		Code        string          `json:"code"`
		Msg         string          `json:"msg"`
		RequestTime int64           `json:"requestTime"`
		Data        json.RawMessage `json:"data"`
	}{e.Code, e.Msg, e.RequestTime.Int(), data})
}

// Clock is the time source of the client and its rate limiter.
// clock.Real and *clock.Virtual satisfy it.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}
