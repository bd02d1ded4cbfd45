//! Bounded line reading for the stdio framing: a line longer than the
//! limit is discarded as it streams in, so memory stays bounded.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

/// What [`read_bounded_line`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A line (without its newline) is in the buffer.
    Complete,
    /// The line was longer than the limit and was discarded up to its newline.
    TooLong,
    /// The input ended.
    Eof,
}

/// Read one `\n`-terminated line into `buf` (cleared first), never holding
/// more than `max` bytes of it. A last line without a newline still counts.
pub async fn read_bounded_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut too_long = false;
    let mut read_any = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (read_any, too_long) {
                (false, _) => Line::Eof,
                (true, true) => Line::TooLong,
                (true, false) => Line::Complete,
            });
        }
        read_any = true;
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        if !too_long {
            if buf.len() + chunk.len() > max {
                too_long = true;
                buf.clear();
                buf.shrink_to(64 * 1024);
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let consumed = done.unwrap_or(available.len());
        reader.consume(consumed);
        if done.is_some() {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(if too_long {
                Line::TooLong
            } else {
                Line::Complete
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::BufReader;

    #[tokio::test]
    async fn bounded_lines() {
        let input = b"short\r\n0123456789abc\nlast".to_vec();
        let mut reader = BufReader::with_capacity(4, &input[..]);
        let mut buf = Vec::new();
        assert_eq!(
            read_bounded_line(&mut reader, &mut buf, 10).await.unwrap(),
            Line::Complete
        );
        assert_eq!(buf, b"short");
        assert_eq!(
            read_bounded_line(&mut reader, &mut buf, 10).await.unwrap(),
            Line::TooLong
        );
        assert_eq!(
            read_bounded_line(&mut reader, &mut buf, 10).await.unwrap(),
            Line::Complete
        );
        assert_eq!(buf, b"last");
        assert_eq!(
            read_bounded_line(&mut reader, &mut buf, 10).await.unwrap(),
            Line::Eof
        );
    }
}
