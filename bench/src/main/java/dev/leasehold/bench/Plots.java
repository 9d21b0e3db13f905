package dev.leasehold.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Plots draws empirical CDFs with XChart and writes them as PNG files.
 *
 * <p>Stateless; XChart itself is not documented as thread-safe, so call from one thread.
 */
final class Plots {
  private static final Color[] COLORS = {
    new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
    new Color(0x9467bd), new Color(0xff7f0e), new Color(0x8c564b),
  };

  private Plots() {}

  /** colorFor keeps one colour per contender across the charts; other series take the palette's next. */
  private static Color colorFor(String label, int i) {
    if (label.startsWith("Leasehold,")) {
      return new Color(0xff7f0e);
    }
    if (label.startsWith("Leasehold")) {
      return label.contains("TTL 5") ? new Color(0x0b3d66) : new Color(0x1f77b4);
    }
    if (label.startsWith("jetcd")) {
      return label.contains("TTL 5") ? new Color(0x145214) : new Color(0x2ca02c);
    }
    if (label.startsWith("polling")) {
      return label.contains("TTL 5") ? new Color(0x4b2a66) : new Color(0x9467bd);
    }
    return COLORS[i % COLORS.length];
  }

  /**
   * cdf writes one chart with one step curve per series (label → samples in ms) to
   * {@code file}, which gets a .png extension added.
   */
  static Path cdf(Path file, String title, String xTitle, Map<String, List<Double>> series, boolean logX)
      throws IOException {
    XYChart chart = new XYChartBuilder().width(900).height(560).title(title)
        .xAxisTitle(xTitle).yAxisTitle("fraction of trials ≤ x").build();
    XYStyler st = chart.getStyler();
    st.setLegendPosition(Styler.LegendPosition.InsideSE);
    st.setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setPlotGridLinesVisible(true);
    chart.getStyler().setXAxisLogarithmic(logX);
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setYAxisMax(1.0);
    // Ticks fall on multiples of 1/n; "0.033333" for n=30 is noise.
    chart.getStyler().setYAxisDecimalPattern("0.00");
    int i = 0;
    for (Map.Entry<String, List<Double>> e : series.entrySet()) {
      List<Double> s = new ArrayList<>(e.getValue());
      if (s.isEmpty()) {
        continue;
      }
      s.sort(Double::compare);
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      int n = s.size();
      for (int k = 0; k < n; k++) {
        double x = logX ? Math.max(s.get(k), 0.01) : s.get(k);
        xs.add(x);
        ys.add((double) k / n);
        xs.add(x);
        ys.add((double) (k + 1) / n);
      }
      XYSeries xy = chart.addSeries(e.getKey() + " (n=" + n + ")", xs, ys);
      xy.setMarker(SeriesMarkers.NONE);
      xy.setLineColor(colorFor(e.getKey(), i));
      xy.setLineStyle(new BasicStroke(2f));
      i++;
    }
    BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return Path.of(file + ".png");
  }
}
