// The tokens of the pipeline text form (grammar in docs/text-form.md).
#pragma once

#include <string>
#include <vector>

namespace trapeze::text_form {

/// A place in the text: 1-based line and column (in bytes).
struct TextPosition {
  int line = 1;
  int column = 1;
};

/// Throws trapeze::Error with the message "FILE:LINE:COLUMN: message".
[[noreturn]] void fail_at(const std::string& filename, TextPosition where,
                          const std::string& message);

enum class TokenKind {
  Identifier,
  Integer, ///< digits only; the sign is a separate '-' token
  Float,   ///< digits with '.' or an exponent; `text` excludes a trailing 'f'
  String,  ///< "..." (only for the pipeline's name); `text` holds the unescaped contents
  Symbol,  ///< punctuation and operators: ( ) [ ] , : = += == != < <= > >= + - * / % ! && ||
  End,     ///< the end of the text
};

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;
  bool float32 = false; ///< a Float literal with an 'f' suffix
  TextPosition where;

  bool is_symbol(const char* s) const { return kind == TokenKind::Symbol && text == s; }
  bool is_word(const char* s) const { return kind == TokenKind::Identifier && text == s; }
  /// How an error message shows the token: "'on'", "the end of the file".
  std::string describe() const;
};

/// Splits the text into tokens, dropping whitespace, newlines and '#' comments.
/// The last token is always End. Throws trapeze::Error on a character that
/// starts no token.
std::vector<Token> tokenize(const std::string& text, const std::string& filename);

} // namespace trapeze::text_form
