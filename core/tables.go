package core

// DataTypeAlias is a name ParseDataType accepts besides DataType.String.
type DataTypeAlias struct {
	Alias string
	Type  DataType
}

// DataTypeAliases lists every alias ParseDataType accepts: numpy's scalar
// type name "bool_" and numpy's type codes ("?", "b1", "i1".."i8",
// "u1".."u8", "f2".."f8", "c8", "c16"). Other languages' bindings (the
// Python package's generated _tables.py) read their dtype names from here
// and from DataTypes. Do not modify.
var DataTypeAliases = []DataTypeAlias{
	{"bool_", Bool}, {"?", Bool}, {"b1", Bool},
	{"i1", Int8}, {"i2", Int16}, {"i4", Int32}, {"i8", Int64},
	{"u1", Uint8}, {"u2", Uint16}, {"u4", Uint32}, {"u8", Uint64},
	{"f2", Float16}, {"f4", Float32}, {"f8", Float64},
	{"c8", Complex64}, {"c16", Complex128},
}
