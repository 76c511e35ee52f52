package registry

import "slices"

// Build deep-copies its input so that a Snapshot never shares memory with a
// Document the caller may keep changing.

func cloneAsset(a *Asset) Asset {
	c := *a
	c.Aliases = slices.Clone(a.Aliases)
	if a.PreIPO != nil {
		p := *a.PreIPO
		c.PreIPO = &p
	}
	c.Variants = make([]Variant, len(a.Variants))
	for i := range a.Variants {
		c.Variants[i] = cloneVariant(&a.Variants[i])
	}
	return c
}

func cloneVariant(v *Variant) Variant {
	c := *v
	c.Tags = slices.Clone(v.Tags)
	if v.Decimals != nil {
		d := *v.Decimals
		c.Decimals = &d
	}
	return c
}

func cloneList(l *CuratedList) CuratedList {
	c := *l
	c.Members = slices.Clone(l.Members)
	return c
}
