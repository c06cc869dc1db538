package tpcc

import (
	"fmt"

	"github.com/encbench/encbench/internal/workload"
)

// condition is one of TPC-C 3.3.2's twelve, with what breaks it.
type condition struct {
	workload.CheckResult
	bad     []string
	checked string
}

func (c *condition) fail(format string, args ...any) {
	c.bad = append(c.bad, fmt.Sprintf(format, args...))
}

// conditions applies 3.3.2.1 to 3.3.2.12 to the decrypted state.
func (st *state) conditions() []workload.CheckResult {
	cs := []*condition{
		{CheckResult: workload.CheckResult{ID: "3.3.2.1", Condition: "W_YTD = sum(D_YTD) for each warehouse"}},
		{CheckResult: workload.CheckResult{ID: "3.3.2.2", Condition: "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) for each district"}},
		{CheckResult: workload.CheckResult{ID: "3.3.2.3", Condition: "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER for each district"}},
		{CheckResult: workload.CheckResult{ID: "3.3.2.4", Condition: "sum(O_OL_CNT) = rows in ORDER-LINE for each district"}},
		{CheckResult: workload.CheckResult{ID: "3.3.2.5", Condition: "O_CARRIER_ID is null if and only if the order has a NEW-ORDER row"}},
		{CheckResult: workload.CheckResult{ID: "3.3.2.6", Condition: "O_OL_CNT = rows in ORDER-LINE for each order"}},
		{CheckResult: workload.CheckResult{ID: "3.3.2.7", Condition: "OL_DELIVERY_D is null if and only if its order's O_CARRIER_ID is null"}},
		{CheckResult: workload.CheckResult{ID: "3.3.2.8", Condition: "W_YTD = sum(H_AMOUNT) for each warehouse"}},
		{CheckResult: workload.CheckResult{ID: "3.3.2.9", Condition: "D_YTD = sum(H_AMOUNT) for each district"}},
		{CheckResult: workload.CheckResult{ID: "3.3.2.10", Condition: "C_BALANCE = sum(OL_AMOUNT of delivered lines of its orders) - sum(H_AMOUNT) for each customer"}},
		{CheckResult: workload.CheckResult{ID: "3.3.2.11", Condition: "rows in ORDER - rows in NEW-ORDER = 2100 for each district (right after the initial population)"}},
		{CheckResult: workload.CheckResult{ID: "3.3.2.12", Condition: "C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT of delivered lines of its orders) for each customer"}},
	}
	warehouses := fmt.Sprintf("%d warehouse(s)", len(st.wYtd))
	districtsText := fmt.Sprintf("%d districts", len(st.next))
	ordersText := fmt.Sprintf("%d orders", len(st.orders))
	customersText := fmt.Sprintf("%d customers", len(st.balance))
	for id, ytd := range st.wYtd {
		var sum int64
		for key, d := range st.dYtd {
			if key.w == id {
				sum += d
			}
		}
		if ytd != sum {
			cs[0].fail("warehouse %d: W_YTD %s, sum(D_YTD) %s", id, cents(ytd), cents(sum))
		}
		if ytd != st.histW[id] {
			cs[7].fail("warehouse %d: W_YTD %s, sum(H_AMOUNT) %s", id, cents(ytd), cents(st.histW[id]))
		}
	}
	cs[0].checked, cs[7].checked = warehouses, warehouses
	fresh := true
	for key, n := range st.next {
		if n-1 != st.maxO[key] || (st.countNO[key] > 0 && n-1 != st.maxNO[key]) {
			cs[1].fail("district %d/%d: D_NEXT_O_ID-1 %d, max(O_ID) %d, max(NO_O_ID) %d", key.w, key.d, n-1, st.maxO[key], st.maxNO[key])
		}
		if st.countNO[key] > 0 && st.maxNO[key]-st.minNO[key]+1 != st.countNO[key] {
			cs[2].fail("district %d/%d: max-min+1 %d, rows %d", key.w, key.d, st.maxNO[key]-st.minNO[key]+1, st.countNO[key])
		}
		if st.olCnt[key] != st.linesPerD[key] {
			cs[3].fail("district %d/%d: sum(O_OL_CNT) %d, rows %d", key.w, key.d, st.olCnt[key], st.linesPerD[key])
		}
		if st.dYtd[key] != st.histD[key] {
			cs[8].fail("district %d/%d: D_YTD %s, sum(H_AMOUNT) %s", key.w, key.d, cents(st.dYtd[key]), cents(st.histD[key]))
		}
		// No New-Order and no Delivery since the load: the only state
		// in which 3.3.2.11 holds.
		fresh = fresh && n == orders+1 && st.minNO[key] == firstNewOrder
		if d := st.orderRows[key] - st.countNO[key]; d != firstNewOrder-1 {
			cs[10].fail("district %d/%d: %d orders - %d new orders = %d", key.w, key.d, st.orderRows[key], st.countNO[key], d)
		}
	}
	for _, i := range []int{1, 2, 3, 8, 10} {
		cs[i].checked = districtsText
	}
	delivered := map[customerKey]int64{}
	for key, o := range st.orders {
		if key.w < 0 {
			cs[5].fail("%d order lines without their order", o.lines)
			continue
		}
		if o.carrierNull != st.newOrders[key] {
			cs[4].fail("order %d/%d/%d: O_CARRIER_ID null %v, NEW-ORDER row %v", key.w, key.d, key.o, o.carrierNull, st.newOrders[key])
		}
		if o.olCnt != o.lines {
			cs[5].fail("order %d/%d/%d: O_OL_CNT %d, %d lines", key.w, key.d, key.o, o.olCnt, o.lines)
		}
		if (o.carrierNull && o.delivered > 0) || (!o.carrierNull && o.undelivered > 0) {
			cs[6].fail("order %d/%d/%d: O_CARRIER_ID null %v, %d delivered and %d undelivered lines", key.w, key.d, key.o, o.carrierNull, o.delivered, o.undelivered)
		}
		delivered[customerKey{key.w, key.d, o.customer}] += o.deliveredAmount
	}
	for key := range st.newOrders {
		if st.orders[key] == nil {
			cs[4].fail("new order %d/%d/%d has no order", key.w, key.d, key.o)
		}
	}
	cs[4].checked, cs[5].checked, cs[6].checked = ordersText, ordersText, ordersText
	for key, bal := range st.balance {
		if want := delivered[key] - st.histC[key]; bal != want {
			cs[9].fail("customer %d/%d/%d: C_BALANCE %s, delivered %s - paid %s = %s", key.w, key.d, key.c, cents(bal), cents(delivered[key]), cents(st.histC[key]), cents(want))
		}
		if got := bal + st.ytdPayment[key]; got != delivered[key] {
			cs[11].fail("customer %d/%d/%d: C_BALANCE + C_YTD_PAYMENT %s, delivered %s", key.w, key.d, key.c, cents(got), cents(delivered[key]))
		}
	}
	cs[9].checked, cs[11].checked = customersText, customersText
	var out []workload.CheckResult
	for i, c := range cs {
		c.OK = len(c.bad) == 0
		c.Detail = c.checked + " checked"
		if !c.OK {
			c.Detail = fmt.Sprintf("%d violation(s), first: %s", len(c.bad), c.bad[0])
		}
		if i == 10 && !fresh {
			c.OK, c.NotApplicable = true, true
			c.Detail = "not applicable: New-Order or Delivery transactions ran since the initial population, and the condition holds only right after it"
		}
		out = append(out, c.CheckResult)
	}
	return out
}

func cents(n int64) string {
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	return fmt.Sprintf("%s%d.%02d", sign, n/100, n%100)
}
