package core

// roundTo returns f rounded to the real type dt (float16, bfloat16,
// float32; float64 and others unchanged), as a float64: the value storing f
// in an array of dt keeps (Float64ToFloat16, Float64ToBFloat16).
func roundTo(dt DataType, f float64) float64 {
	switch {
	case dt.Code == KDLFloat && dt.Bits == 16:
		return float64(Float16ToFloat32(Float64ToFloat16(f)))
	case dt.Code == KDLBfloat && dt.Bits == 16:
		return float64(BFloat16ToFloat32(Float64ToBFloat16(f)))
	case dt.Code == KDLFloat && dt.Bits == 32, dt.Code == KDLComplex && dt.Bits == 64:
		return float64(float32(f))
	}
	return f
}
