package listeners

import "slices"

// idTable maps listener IDs to values: a slice indexed by ID while the IDs
// are dense (the common case: modules number their listeners from 0 or 1),
// a map for those that are not (issue 18: map lookups were ~15% of
// `tables --json`). The slice only grows to an ID when it stays within
// about twice the entries it holds, so a hostile ID (4 billion) costs one
// map entry, not a giant slice.
type idTable[V any] struct {
	dense []V
	has   []bool
	n     int
	// sparse maps the IDs past the slice to their index in extra.
	sparse  map[uint32]int32
	extra   []V
	extraID []uint32
}

// denseSlack is how far past twice its entries the slice may grow.
const denseSlack = 64

// ptr returns the value of id, or nil when there is none. It stays valid
// until the next set or del.
func (t *idTable[V]) ptr(id uint32) *V {
	if uint64(id) < uint64(len(t.dense)) && t.has[id] {
		return &t.dense[id]
	}
	if t.sparse != nil {
		if k, ok := t.sparse[id]; ok {
			return &t.extra[k]
		}
	}
	return nil
}

// get returns the value of id and whether there is one.
func (t *idTable[V]) get(id uint32) (V, bool) {
	if p := t.ptr(id); p != nil {
		return *p, true
	}
	var zero V
	return zero, false
}

// at returns the value of id, or the zero value.
func (t *idTable[V]) at(id uint32) V {
	v, _ := t.get(id)
	return v
}

// set stores v as the value of id.
func (t *idTable[V]) set(id uint32, v V) {
	if p := t.ptr(id); p != nil {
		*p = v
		return
	}
	t.n++
	if uint64(id) >= uint64(len(t.dense)) {
		grow := max(int(id)+1, 2*len(t.dense), 16)
		if uint64(id) >= uint64(2*t.n+denseSlack) {
			if t.sparse == nil {
				t.sparse = map[uint32]int32{}
			}
			t.sparse[id] = int32(len(t.extra))
			t.extra = append(t.extra, v)
			t.extraID = append(t.extraID, id)
			return
		}
		grow = min(grow, 2*t.n+denseSlack)
		d := make([]V, grow)
		h := make([]bool, grow)
		copy(d, t.dense)
		copy(h, t.has)
		t.dense, t.has = d, h
	}
	t.dense[id], t.has[id] = v, true
}

// del removes id.
func (t *idTable[V]) del(id uint32) {
	var zero V
	if uint64(id) < uint64(len(t.dense)) && t.has[id] {
		t.dense[id], t.has[id] = zero, false
		t.n--
		return
	}
	k, ok := t.sparse[id]
	if !ok {
		return
	}
	last := int32(len(t.extra) - 1)
	if k != last {
		t.extra[k], t.extraID[k] = t.extra[last], t.extraID[last]
		t.sparse[t.extraID[k]] = k
	}
	t.extra[last] = zero
	t.extra, t.extraID = t.extra[:last], t.extraID[:last]
	delete(t.sparse, id)
	t.n--
}

// len returns how many IDs have a value.
func (t *idTable[V]) len() int { return t.n }

// each calls f with every ID and its value: the dense IDs in order, then
// the others in no order.
func (t *idTable[V]) each(f func(id uint32, v *V)) {
	for id, ok := range t.has {
		if ok {
			f(uint32(id), &t.dense[id])
		}
	}
	for k, id := range t.extraID {
		f(id, &t.extra[k])
	}
}

// clone returns an independent copy.
func (t *idTable[V]) clone() idTable[V] {
	c := idTable[V]{
		dense:   append([]V(nil), t.dense...),
		has:     append([]bool(nil), t.has...),
		n:       t.n,
		extra:   append([]V(nil), t.extra...),
		extraID: append([]uint32(nil), t.extraID...),
	}
	if t.sparse != nil {
		c.sparse = make(map[uint32]int32, len(t.sparse))
		for id, k := range t.sparse {
			c.sparse[id] = k
		}
	}
	return c
}

// ids returns the IDs, sorted (outputs.md: lists are sorted by id).
func (t *idTable[V]) ids() []uint32 {
	out := make([]uint32, 0, t.n)
	for id, ok := range t.has {
		if ok {
			out = append(out, uint32(id))
		}
	}
	if len(t.extraID) > 0 {
		out = append(out, t.extraID...)
		sortIDs(out)
	}
	return out
}

func sortIDs(ids []uint32) { slices.Sort(ids) }
