//! A compact binary form of serde data, for scenario and lesson files inside the page: the
//! built-in scenarios and lessons are embedded in it (see `build.rs`), and the import worker
//! sends imported scenarios in it. The page only decodes. Structs are their fields in order
//! (never a map of names), so the decoder stays small; every value carries a one-byte tag,
//! so untagged enums work and a damaged input is refused, never misread. A field its struct
//! chose not to write (`skip_serializing_if`) is marked absent and takes its
//! `#[serde(default)]`.
//!
//! This file is also compiled into `build.rs` (with `#[path]`).

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::ser::{self, Serialize};
use std::fmt;

const NONE: u8 = 0;
const SOME: u8 = 1;
const FALSE: u8 = 2;
const TRUE: u8 = 3;
const UNSIGNED: u8 = 4;
const SIGNED: u8 = 5;
const FLOAT: u8 = 6;
const STRING: u8 = 7;
const SEQ: u8 = 8;
const MAP: u8 = 9;
const UNIT: u8 = 10;
const VARIANT: u8 = 11;
const STRUCT: u8 = 12;
const ABSENT: u8 = 13;

/// Deeper than any scenario nests; a hostile input cannot exhaust the stack.
const MAX_DEPTH: u32 = 64;

#[derive(Debug)]
pub struct WireError(String);

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WireError {}

/// Decoding errors say only where they come from: the page decodes what build.rs or the
/// import worker wrote, so a failure means damage, not a mistake to explain. (Formatting
/// serde's detailed messages would ship every type's description to the browser.)
impl de::Error for WireError {
    fn custom<T: fmt::Display>(_: T) -> Self {
        WireError("damaged scenario data".into())
    }
    fn invalid_type(_: de::Unexpected, _: &dyn de::Expected) -> Self {
        WireError("damaged scenario data: a value of the wrong type".into())
    }
    fn invalid_value(_: de::Unexpected, _: &dyn de::Expected) -> Self {
        WireError("damaged scenario data: a value out of range".into())
    }
    fn invalid_length(_: usize, _: &dyn de::Expected) -> Self {
        WireError("damaged scenario data: a wrong length".into())
    }
    fn unknown_variant(_: &str, _: &'static [&'static str]) -> Self {
        WireError("damaged scenario data: an unknown variant".into())
    }
    fn unknown_field(_: &str, _: &'static [&'static str]) -> Self {
        WireError("damaged scenario data: an unknown field".into())
    }
    fn missing_field(_: &'static str) -> Self {
        WireError("damaged scenario data: a missing field".into())
    }
    fn duplicate_field(_: &'static str) -> Self {
        WireError("damaged scenario data: a field twice".into())
    }
}

impl ser::Error for WireError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        WireError(msg.to_string())
    }
}

type Result<T> = std::result::Result<T, WireError>;

#[allow(dead_code)] // the page decodes only
pub fn to_bytes<T: Serialize>(value: &T) -> Result<Vec<u8>> {
    let mut writer = Writer {
        out: Vec::new(),
        open: Vec::new(),
    };
    value.serialize(&mut writer)?;
    Ok(writer.out)
}

pub fn from_bytes<'de, T: de::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T> {
    let mut reader = Reader {
        bytes,
        at: 0,
        depth: 0,
    };
    let value = T::deserialize(&mut reader)?;
    if reader.at != bytes.len() {
        return Err(WireError("trailing bytes".into()));
    }
    Ok(value)
}

struct Writer {
    out: Vec<u8>,
    /// Open structs: where each one's field count goes, and the fields so far. (Serde
    /// announces a struct's length without its skipped fields; they are written as absent.)
    open: Vec<(usize, u32)>,
}

impl Writer {
    fn varint(&mut self, mut n: u64) {
        while n >= 0x80 {
            self.out.push((n as u8) | 0x80);
            n >>= 7;
        }
        self.out.push(n as u8);
    }

    fn field(&mut self) {
        if let Some(top) = self.open.last_mut() {
            top.1 += 1;
        }
    }

    fn end_struct(&mut self) {
        if let Some((at, count)) = self.open.pop() {
            self.out[at..at + 4].copy_from_slice(&count.to_le_bytes());
        }
    }

    fn tagged(&mut self, tag: u8, n: u64) {
        self.out.push(tag);
        self.varint(n);
    }
}

impl ser::Serializer for &mut Writer {
    type Ok = ();
    type Error = WireError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Result<()> {
        self.out.push(if v { TRUE } else { FALSE });
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.tagged(SIGNED, ((v << 1) ^ (v >> 63)) as u64);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.tagged(UNSIGNED, v);
        Ok(())
    }
    fn serialize_f32(self, v: f32) -> Result<()> {
        self.serialize_f64(v.into())
    }
    fn serialize_f64(self, v: f64) -> Result<()> {
        self.out.push(FLOAT);
        self.out.extend_from_slice(&v.to_le_bytes());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<()> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<()> {
        self.tagged(STRING, v.len() as u64);
        self.out.extend_from_slice(v.as_bytes());
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.tagged(SEQ, v.len() as u64);
        for b in v {
            self.tagged(UNSIGNED, u64::from(*b));
        }
        Ok(())
    }
    fn serialize_none(self) -> Result<()> {
        self.out.push(NONE);
        Ok(())
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<()> {
        self.out.push(SOME);
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<()> {
        self.out.push(UNIT);
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<()> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(self, _: &'static str, index: u32, _: &'static str) -> Result<()> {
        self.tagged(VARIANT, index.into());
        self.serialize_unit()
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        value: &T,
    ) -> Result<()> {
        self.tagged(VARIANT, index.into());
        value.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self> {
        let len = len.ok_or_else(|| WireError("a sequence without a length".into()))?;
        self.tagged(SEQ, len as u64);
        Ok(self)
    }
    fn serialize_tuple(self, len: usize) -> Result<Self> {
        self.tagged(SEQ, len as u64);
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Self> {
        self.serialize_tuple(len)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        len: usize,
    ) -> Result<Self> {
        self.tagged(VARIANT, index.into());
        self.serialize_tuple(len)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self> {
        let len = len.ok_or_else(|| WireError("a map without a length".into()))?;
        self.tagged(MAP, len as u64);
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self> {
        self.out.push(STRUCT);
        self.open.push((self.out.len(), 0));
        self.out.extend_from_slice(&[0; 4]);
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        len: usize,
    ) -> Result<Self> {
        self.tagged(VARIANT, index.into());
        self.serialize_struct("", len)
    }
}

impl ser::SerializeSeq for &mut Writer {
    type Ok = ();
    type Error = WireError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTuple for &mut Writer {
    type Ok = ();
    type Error = WireError;
    fn serialize_element<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTupleStruct for &mut Writer {
    type Ok = ();
    type Error = WireError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeTupleVariant for &mut Writer {
    type Ok = ();
    type Error = WireError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeMap for &mut Writer {
    type Ok = ();
    type Error = WireError;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, key: &T) -> Result<()> {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<()> {
        Ok(())
    }
}

impl ser::SerializeStruct for &mut Writer {
    type Ok = ();
    type Error = WireError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, _: &'static str, value: &T) -> Result<()> {
        value.serialize(&mut **self)?;
        self.field();
        Ok(())
    }
    fn skip_field(&mut self, _: &'static str) -> Result<()> {
        self.out.push(ABSENT);
        self.field();
        Ok(())
    }
    fn end(self) -> Result<()> {
        self.end_struct();
        Ok(())
    }
}

impl ser::SerializeStructVariant for &mut Writer {
    type Ok = ();
    type Error = WireError;
    fn serialize_field<T: ?Sized + Serialize>(&mut self, _: &'static str, value: &T) -> Result<()> {
        value.serialize(&mut **self)?;
        self.field();
        Ok(())
    }
    fn skip_field(&mut self, _: &'static str) -> Result<()> {
        self.out.push(ABSENT);
        self.field();
        Ok(())
    }
    fn end(self) -> Result<()> {
        self.end_struct();
        Ok(())
    }
}

fn mismatch() -> WireError {
    WireError("damaged scenario data: a value of the wrong type".into())
}

struct Reader<'de> {
    bytes: &'de [u8],
    at: usize,
    depth: u32,
}

impl<'de> Reader<'de> {
    fn byte(&mut self) -> Result<u8> {
        let b = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| WireError("unexpected end".into()))?;
        self.at += 1;
        Ok(b)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn varint(&mut self) -> Result<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(WireError("an overlong number".into()))
    }

    /// A length, bounded by what is left to read (each item takes at least a byte).
    fn length(&mut self) -> Result<u32> {
        let n = self.varint()?;
        self.bounded(n)
    }

    /// A struct's field count: four bytes, little-endian.
    fn field_count(&mut self) -> Result<u32> {
        let mut b = [0u8; 4];
        for x in &mut b {
            *x = self.byte()?;
        }
        self.bounded(u32::from_le_bytes(b).into())
    }

    fn bounded(&self, n: u64) -> Result<u32> {
        if n > (self.bytes.len() - self.at) as u64 {
            return Err(WireError("a length past the end".into()));
        }
        Ok(n as u32)
    }

    fn expect(&mut self, tag: u8, what: &str) -> Result<()> {
        if self.byte()? == tag {
            Ok(())
        } else {
            Err(WireError(format!("expected {what}")))
        }
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if self.depth >= MAX_DEPTH {
            return Err(WireError("nested too deep".into()));
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }
}

struct Items<'a, 'de> {
    reader: &'a mut Reader<'de>,
    left: u32,
}

impl<'de> de::SeqAccess<'de> for Items<'_, 'de> {
    type Error = WireError;
    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        if self.reader.peek() == Some(ABSENT) {
            self.reader.at += 1;
            return Ok(None);
        }
        seed.deserialize(&mut *self.reader).map(Some)
    }
}

impl<'de> de::MapAccess<'de> for Items<'_, 'de> {
    type Error = WireError;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.reader).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.reader)
    }
}

/// A struct's fields as a map from field index to value; absent fields are left out.
struct Fields<'a, 'de> {
    reader: &'a mut Reader<'de>,
    left: u32,
    index: u64,
}

impl<'de> de::MapAccess<'de> for Fields<'_, 'de> {
    type Error = WireError;
    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        while self.left > 0 {
            self.left -= 1;
            self.index += 1;
            if self.reader.peek() == Some(ABSENT) {
                self.reader.at += 1;
                continue;
            }
            return seed
                .deserialize((self.index - 1).into_deserializer())
                .map(Some);
        }
        Ok(None)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.reader)
    }
}

impl<'de> de::EnumAccess<'de> for &mut Reader<'de> {
    type Error = WireError;
    type Variant = Self;
    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        let index = u32::try_from(self.varint()?).map_err(|_| WireError("a bad variant".into()))?;
        let value = seed.deserialize(index.into_deserializer())?;
        Ok((value, self))
    }
}

impl<'de> de::VariantAccess<'de> for &mut Reader<'de> {
    type Error = WireError;
    fn unit_variant(self) -> Result<()> {
        self.expect(UNIT, "a unit variant")
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_seq(self, visitor)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = WireError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.byte()? {
            NONE => visitor.visit_none(),
            SOME => self.nested(|r| visitor.visit_some(r)),
            FALSE => visitor.visit_bool(false),
            TRUE => visitor.visit_bool(true),
            UNSIGNED => visitor.visit_u64(self.varint()?),
            SIGNED => {
                let n = self.varint()?;
                visitor.visit_i64(((n >> 1) as i64) ^ -((n & 1) as i64))
            }
            FLOAT => {
                let mut b = [0u8; 8];
                for x in &mut b {
                    *x = self.byte()?;
                }
                visitor.visit_f64(f64::from_le_bytes(b))
            }
            STRING => {
                let len = self.length()? as usize;
                let raw = &self.bytes[self.at..self.at + len];
                self.at += len;
                let text =
                    std::str::from_utf8(raw).map_err(|_| WireError("a string not UTF-8".into()))?;
                visitor.visit_borrowed_str(text)
            }
            SEQ => {
                let left = self.length()?;
                self.nested(|reader| visitor.visit_seq(Items { reader, left }))
            }
            // A struct met without its type (an untagged enum, or a lesson's `until` table):
            // a map keyed by field index, which serde's derived field names accept.
            STRUCT => {
                let left = self.field_count()?;
                self.nested(|reader| {
                    visitor.visit_map(Fields {
                        reader,
                        left,
                        index: 0,
                    })
                })
            }
            MAP => {
                let left = self.length()?;
                self.nested(|reader| visitor.visit_map(Items { reader, left }))
            }
            UNIT => visitor.visit_unit(),
            VARIANT => self.nested(|r| visitor.visit_enum(r)),
            _ => Err(WireError("an unknown tag".into())),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek() {
            Some(NONE) => {
                self.at += 1;
                visitor.visit_none()
            }
            Some(SOME) => {
                self.at += 1;
                self.nested(|r| visitor.visit_some(r))
            }
            _ => Err(WireError("expected an option".into())),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.expect(STRUCT, "a struct")?;
        let left = self.field_count()?;
        self.nested(|reader| visitor.visit_seq(Items { reader, left }))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.expect(VARIANT, "an enum")?;
        self.nested(|r| visitor.visit_enum(r))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    // Each typed request reads its own tag and calls the one visitor method that fits, so
    // that the decoder of a field is small; `deserialize_any` (every tag) serves untagged
    // enums only.
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.byte()? {
            FALSE => visitor.visit_bool(false),
            TRUE => visitor.visit_bool(true),
            _ => Err(mismatch()),
        }
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.expect(UNSIGNED, "a number")?;
        visitor.visit_u64(self.varint()?)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_u64(visitor)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_u64(visitor)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_u64(visitor)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.expect(SIGNED, "a signed number")?;
        let n = self.varint()?;
        visitor.visit_i64(((n >> 1) as i64) ^ -((n & 1) as i64))
    }
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek() != Some(STRING) {
            return Err(mismatch());
        }
        self.deserialize_any(visitor)
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.expect(SEQ, "a sequence")?;
        let left = self.length()?;
        self.nested(|reader| visitor.visit_seq(Items { reader, left }))
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.expect(MAP, "a map")?;
        let left = self.length()?;
        self.nested(|reader| visitor.visit_map(Items { reader, left }))
    }
    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.expect(UNIT, "a unit")?;
        visitor.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    serde::forward_to_deserialize_any! {
        i128 u128 f32 f64 char bytes byte_buf ignored_any
    }
}

// Native only: proptest does not build for wasm32.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use eos_core::scenario::ScenarioFile;
    use proptest::prelude::*;

    #[test]
    fn every_builtin_scenario_round_trips() {
        for (name, text) in eos_core::builtin::BUILTIN {
            let file = eos_core::Scenario::parse(text).expect("parses").file;
            let bytes = to_bytes(&file).expect("encodes");
            let back: ScenarioFile = from_bytes(&bytes).expect(name);
            assert_eq!(back, file, "{name}");
            assert!(
                back.title_ru.is_some() && back.summary_ru.is_some(),
                "{name}"
            );
            // Without the optional translations (an imported file): absent, then None.
            let plain = ScenarioFile {
                title_ru: None,
                summary_ru: None,
                ..file
            };
            let back: ScenarioFile = from_bytes(&to_bytes(&plain).expect("encodes")).expect(name);
            assert_eq!(back, plain, "{name}");
        }
    }

    #[test]
    fn every_builtin_lesson_round_trips() {
        for lesson in eos_core::lesson::builtin_lessons() {
            let bytes = to_bytes(&lesson.file).expect("encodes");
            let back: eos_core::lesson::schema::LessonFile = from_bytes(&bytes).expect("decodes");
            assert_eq!(back, lesson.file);
        }
    }

    #[test]
    fn damaged_input_is_refused() {
        let file = eos_core::builtin::get(eos_core::builtin::DEFAULT)
            .expect("built-in")
            .file;
        let bytes = to_bytes(&file).expect("encodes");
        for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                from_bytes::<ScenarioFile>(&bytes[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(from_bytes::<ScenarioFile>(&longer).is_err());
        let deep = [SOME; 10_000];
        assert!(from_bytes::<Option<Option<u8>>>(&deep).is_err());
    }

    proptest! {
        #[test]
        fn any_bytes_decode_or_are_refused_without_panicking(
            bytes in proptest::collection::vec(any::<u8>(), 0..400)
        ) {
            let _ = from_bytes::<ScenarioFile>(&bytes);
        }

        #[test]
        fn flipped_bytes_of_a_real_scenario_never_panic(at in 0usize..4000, to in any::<u8>()) {
            let file = eos_core::builtin::get("seed-commit-abort").expect("built-in").file;
            let mut bytes = to_bytes(&file).expect("encodes");
            let i = at % bytes.len();
            bytes[i] = to;
            let _ = from_bytes::<ScenarioFile>(&bytes);
        }
    }
}
