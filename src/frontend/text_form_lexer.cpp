// The lexer of the pipeline text form: characters to tokens with positions.
#include "frontend/text_form_lexer.h"

#include "trapeze/error.h"

#include <array>
#include <cctype>
#include <cstdio>
#include <string_view>

namespace trapeze::text_form {

void fail_at(const std::string& filename, TextPosition where, const std::string& message) {
  throw Error(filename + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
              ": " + message);
}

std::string Token::describe() const {
  switch (kind) {
  case TokenKind::End: return "the end of the file";
  case TokenKind::String: return "the string \"" + text + "\"";
  case TokenKind::Float: return "'" + text + (float32 ? "f" : "") + "'";
  default: return "'" + text + "'";
  }
}

namespace {

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Two-character symbols come first so that the longest match wins.
constexpr std::array<const char*, 7> two_char_symbols = {"==", "!=", "<=", ">=", "&&", "||", "+="};
constexpr std::string_view one_char_symbols = "()[],:=<>+-*/%!";

class Lexer {
public:
  Lexer(const std::string& text, const std::string& filename) : text_(text), filename_(filename) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    for (;;) {
      skip_blanks_and_comments();
      Token t;
      t.where = here();
      if (at_end()) {
        tokens.push_back(t);
        return tokens;
      }
      const char c = text_[pos_];
      if (is_identifier_start(c)) {
        t.kind = TokenKind::Identifier;
        while (!at_end() && is_identifier_char(text_[pos_]))
          t.text += advance();
      } else if (is_digit(c)) {
        number(t);
      } else if (c == '"') {
        string(t);
      } else if (!symbol(t)) {
        std::string shown(1, c);
        if (!std::isprint(static_cast<unsigned char>(c))) {
          char buf[16];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          shown = buf;
        }
        fail_at(filename_, t.where, "unexpected character '" + shown + "'");
      }
      tokens.push_back(std::move(t));
    }
  }

private:
  const std::string& text_;
  const std::string& filename_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;

  bool at_end() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  TextPosition here() const { return TextPosition{line_, column_}; }
  char advance() {
    const char c = text_[pos_++];
    if (c == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    return c;
  }

  void skip_blanks_and_comments() {
    while (!at_end()) {
      const char c = text_[pos_];
      if (c == '#') {
        while (!at_end() && text_[pos_] != '\n')
          advance();
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        advance();
      } else {
        return;
      }
    }
  }

  // digits ['.' digits] [('e'|'E') ['+'|'-'] digits] ['f']
  void number(Token& t) {
    t.kind = TokenKind::Integer;
    while (is_digit(peek()))
      t.text += advance();
    if (peek() == '.' && is_digit(peek(1))) {
      t.kind = TokenKind::Float;
      t.text += advance();
      while (is_digit(peek()))
        t.text += advance();
    }
    if ((peek() == 'e' || peek() == 'E') &&
        (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
      t.kind = TokenKind::Float;
      t.text += advance();
      if (peek() == '+' || peek() == '-') t.text += advance();
      while (is_digit(peek()))
        t.text += advance();
    }
    if (peek() == 'f') {
      advance();
      t.kind = TokenKind::Float;
      t.float32 = true;
    }
    if (is_identifier_char(peek()))
      fail_at(filename_, here(),
              "unexpected character '" + std::string(1, peek()) + "' after the number '" + t.text +
                  "'");
  }

  void string(Token& t) {
    t.kind = TokenKind::String;
    advance(); // the opening quote
    for (;;) {
      if (at_end() || peek() == '\n')
        fail_at(filename_, t.where, "the string that starts here has no closing '\"'");
      const char c = advance();
      if (c == '"') return;
      if (c == '\\') {
        if (at_end() || (peek() != '"' && peek() != '\\'))
          fail_at(filename_, here(), "unknown escape in a string: only \\\" and \\\\ are allowed");
        t.text += advance();
      } else {
        t.text += c;
      }
    }
  }

  bool symbol(Token& t) {
    t.kind = TokenKind::Symbol;
    for (const char* s : two_char_symbols) {
      if (peek() == s[0] && peek(1) == s[1]) {
        t.text += advance();
        t.text += advance();
        return true;
      }
    }
    if (one_char_symbols.find(peek()) != std::string_view::npos) {
      t.text += advance();
      return true;
    }
    return false;
  }
};

} // namespace

std::vector<Token> tokenize(const std::string& text, const std::string& filename) {
  return Lexer(text, filename).run();
}

} // namespace trapeze::text_form
