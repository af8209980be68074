//===----------------------------------------------------------------------===//
//
// This source file is part of the Swift Argument Parser open source project
//
// Copyright (c) 2025 Apple Inc. and the Swift project authors
// Licensed under Apache License v2.0 with Runtime Library Exception
//
// See https://swift.org/LICENSE.txt for license information
//
//===----------------------------------------------------------------------===//

// carve: this file replaces upstream's, which imports FoundationEssentials for
// two things and so links ~6.6 MB of Foundation into every tool that uses the
// library. See Vendor/swift-argument-parser/PATCHED.md.

extension Error {
  func describe() -> String {
    String(describing: self)
  }
}

/// Encodes the tool-info tree for `--experimental-dump-help`: pretty printed,
/// keys sorted, as upstream's use of Foundation's JSONEncoder printed it.
enum JSONEncoder {
  static func encode<T: Encodable>(_ value: T) -> String {
    let encoder = TreeEncoder()
    guard (try? value.encode(to: encoder)) != nil else { return "" }
    var out = ""
    encoder.node.tree.write(to: &out, level: 0)
    return out
  }
}

private indirect enum JSONNode {
  case null, bool(Bool), number(String), string(String)
  case array([JSONNode]), object([String: JSONNode])

  func write(to out: inout String, level: Int) {
    let indent = String(repeating: "  ", count: level + 1)
    let closing = String(repeating: "  ", count: level)
    switch self {
    case .null: out += "null"
    case .bool(let value): out += value ? "true" : "false"
    case .number(let text): out += text
    case .string(let text): JSONNode.quote(text, into: &out)
    case .array(let items):
      if items.isEmpty { out += "[\n\n\(closing)]"; return }
      out += "[\n"
      for (index, item) in items.enumerated() {
        out += indent
        item.write(to: &out, level: level + 1)
        out += index == items.count - 1 ? "\n" : ",\n"
      }
      out += closing + "]"
    case .object(let members):
      if members.isEmpty { out += "{\n\n\(closing)}"; return }
      out += "{\n"
      let keys = members.keys.sorted()
      for (index, key) in keys.enumerated() {
        out += indent
        JSONNode.quote(key, into: &out)
        out += " : "
        members[key]!.write(to: &out, level: level + 1)
        out += index == keys.count - 1 ? "\n" : ",\n"
      }
      out += closing + "}"
    }
  }

  static func quote(_ text: String, into out: inout String) {
    out += "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "/": out += "\\/"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}

/// A value being encoded. Containers hold their children by reference, so a
/// nested container handed out before its parent is finished still lands in it.
private final class Node {
  enum Kind { case leaf(JSONNode), array([Node]), object([(String, Node)]) }
  var kind: Kind?

  var tree: JSONNode {
    switch kind {
    case nil: return .object([:])
    case .leaf(let leaf): return leaf
    case .array(let items): return .array(items.map(\.tree))
    case .object(let members):
      var object: [String: JSONNode] = [:]
      for (key, node) in members { object[key] = node.tree }
      return .object(object)
    }
  }
}

private struct TreeEncoder: Encoder {
  var node = Node()
  var codingPath: [any CodingKey] = []
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    if case .object = node.kind {} else { node.kind = .object([]) }
    return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    if case .array = node.kind {} else { node.kind = .array([]) }
    return UnkeyedContainer(node: node, codingPath: codingPath)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleContainer(node: node, codingPath: codingPath)
  }

  static func child<T: Encodable>(for value: T, at path: [any CodingKey]) throws -> Node {
    let encoder = TreeEncoder(node: Node(), codingPath: path)
    try value.encode(to: encoder)
    return encoder.node
  }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let node: Node
  var codingPath: [any CodingKey]

  private func set(_ child: Node, for key: Key) {
    guard case .object(var members) = node.kind else { return }
    members.removeAll { $0.0 == key.stringValue }
    members.append((key.stringValue, child))
    node.kind = .object(members)
  }

  private func leaf(_ value: JSONNode) -> Node {
    let child = Node()
    child.kind = .leaf(value)
    return child
  }

  mutating func encodeNil(forKey key: Key) throws { set(leaf(.null), for: key) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    set(try TreeEncoder.child(for: value, at: codingPath + [key]), for: key)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    let child = TreeEncoder(node: Node(), codingPath: codingPath + [key])
    set(child.node, for: key)
    return child.container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    let child = TreeEncoder(node: Node(), codingPath: codingPath + [key])
    set(child.node, for: key)
    return child.unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder { TreeEncoder(node: node, codingPath: codingPath) }
  mutating func superEncoder(forKey key: Key) -> any Encoder {
    let child = TreeEncoder(node: Node(), codingPath: codingPath + [key])
    set(child.node, for: key)
    return child
  }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
  let node: Node
  var codingPath: [any CodingKey]
  var count: Int {
    if case .array(let items) = node.kind { return items.count }
    return 0
  }

  private func append(_ child: Node) {
    guard case .array(var items) = node.kind else { return }
    items.append(child)
    node.kind = .array(items)
  }

  mutating func encodeNil() throws {
    let child = Node()
    child.kind = .leaf(.null)
    append(child)
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    append(try TreeEncoder.child(for: value, at: codingPath))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
    let child = TreeEncoder(node: Node(), codingPath: codingPath)
    append(child.node)
    return child.container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let child = TreeEncoder(node: Node(), codingPath: codingPath)
    append(child.node)
    return child.unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    let child = TreeEncoder(node: Node(), codingPath: codingPath)
    append(child.node)
    return child
  }
}

private struct SingleContainer: SingleValueEncodingContainer {
  let node: Node
  var codingPath: [any CodingKey]

  private func set(_ value: JSONNode) { node.kind = .leaf(value) }
  mutating func encodeNil() throws { set(.null) }
  mutating func encode(_ value: Bool) throws { set(.bool(value)) }
  mutating func encode(_ value: String) throws { set(.string(value)) }
  mutating func encode(_ value: Double) throws { set(.number(String(value))) }
  mutating func encode(_ value: Float) throws { set(.number(String(value))) }
  mutating func encode(_ value: Int) throws { set(.number(String(value))) }
  mutating func encode(_ value: Int8) throws { set(.number(String(value))) }
  mutating func encode(_ value: Int16) throws { set(.number(String(value))) }
  mutating func encode(_ value: Int32) throws { set(.number(String(value))) }
  mutating func encode(_ value: Int64) throws { set(.number(String(value))) }
  mutating func encode(_ value: UInt) throws { set(.number(String(value))) }
  mutating func encode(_ value: UInt8) throws { set(.number(String(value))) }
  mutating func encode(_ value: UInt16) throws { set(.number(String(value))) }
  mutating func encode(_ value: UInt32) throws { set(.number(String(value))) }
  mutating func encode(_ value: UInt64) throws { set(.number(String(value))) }
  mutating func encode<T: Encodable>(_ value: T) throws {
    node.kind = try TreeEncoder.child(for: value, at: codingPath).kind
  }
}
