package dev.leasehold.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * MarkdownReport is what the bench's reports share to write markdown: the document being built
 * and its headings, paragraphs, images and tables.
 *
 * <p>Not thread-safe: one report is written by one thread.
 */
abstract class MarkdownReport {
  /** md is the document being written. */
  protected final StringBuilder md = new StringBuilder();

  protected final void h2(String s) {
    md.append("## ").append(s).append("\n\n");
  }

  protected final void p(String s) {
    md.append(s).append("\n\n");
  }

  protected final void img(String alt, Path png) {
    md.append("![").append(alt).append("](").append(png.getFileName()).append(")\n\n");
  }

  /** table writes a markdown table; a {@code |} inside a cell is escaped. */
  protected final void table(List<String> header, List<List<String>> rows) {
    md.append("| ").append(String.join(" | ", header)).append(" |\n");
    md.append("|").append("---|".repeat(header.size())).append('\n');
    for (List<String> row : rows) {
      md.append("| ").append(row.stream().map(c -> c.replace("|", "\\|")).collect(Collectors.joining(" | ")))
          .append(" |\n");
    }
    md.append('\n');
  }
}
